// Turning attempt results into what the client sees: routing metadata on success, one ApiError when
// every attempt failed.
import { ApiError } from "../http/errors";
import type { UpstreamError, Warning } from "../providers/types";
import type { Candidate } from "../routing/types";
import type { AttemptPlan } from "./attempt";
import type { Prepared } from "./prepare";
import type { AttemptSummary, RoutingMetadata } from "./types";

export type AttemptLog = AttemptSummary;

/** An attempt's warnings: the route's, and the translation's unless the body went as it was sent. */
export function attemptWarnings(prepared: Prepared, plan: AttemptPlan): Warning[] {
  return prepared.warnings.length && !plan.native ? [...prepared.warnings, ...plan.warnings] : plan.warnings;
}

export function routingMetadata(
  prepared: Prepared,
  plan: AttemptPlan,
  costMicro: number,
  log: AttemptLog[],
  measured: { ttftMs?: number; throughputTps?: number },
): RoutingMetadata {
  const c = plan.candidate;
  const meta: RoutingMetadata = {
    provider: plan.candidate.provider.id,
    provider_model_id: plan.candidate.route.providerModelId,
    model_canonical: plan.candidate.model.id,
    routing_strategy: prepared.strategy,
    // What the router knew when it chose the route: its p50 estimates, and why it led (exploration, sticky).
    // Always present, booleans included, so clients need no absent-means-false rule.
    ttft_ms_estimate: Math.round(c.estimate.ttftP50Ms),
    throughput_tps_estimate: Math.round(c.estimate.tpsP50 * 10) / 10,
    exploration: c.explored === true,
    sticky: c.sticky === true,
    cost: { usd: costMicro / 1_000_000, microdollars: costMicro },
    warnings: attemptWarnings(prepared, plan),
    attempts: log,
  };
  if (measured.ttftMs !== undefined) meta.ttft_ms = Math.round(measured.ttftMs);
  if (measured.throughputTps !== undefined) meta.throughput_tps = Math.round(measured.throughputTps * 10) / 10;
  return meta;
}

/**
 * The client's error after the last attempt: the upstream's own 400 as a 400 (the caller's fault),
 * a timeout as 504, any other failure as 502; nothing tried at all (circuits open) as 503.
 */
export function upstreamFailure(last: { error: UpstreamError; provider: string } | null, nothingTried: boolean): ApiError {
  if (!last || nothingTried) {
    return new ApiError("no_provider_available", "No provider can serve this request right now (circuits open or no route available).");
  }
  const { error, provider } = last;
  // A native attempt's own answer goes back as the provider wrote it, but for the gateway's credential
  // being refused (401/403: the client's key is fine, and telling it otherwise would make it sign in again).
  const native = error.native && error.code !== "auth_failed" && error.native.status >= 400 ? error.native : undefined;
  if (native) {
    const retryAfterSeconds = error.retryAfterMs !== undefined ? error.retryAfterMs / 1000 : undefined;
    return new ApiError(nativeCode(error), error.message, { provider, native, retryAfterSeconds });
  }
  if (error.code === "invalid_request") return new ApiError("invalid_request", error.message, { provider });
  if (error.code === "provider_timeout") return new ApiError("provider_timeout", error.message, { provider });
  return new ApiError("provider_error", error.message, { provider });
}

function nativeCode(error: UpstreamError): "invalid_request" | "provider_timeout" | "provider_error" {
  return error.code === "invalid_request" ? "invalid_request" : error.code === "provider_timeout" ? "provider_timeout" : "provider_error";
}
