// Non-streaming calls: try the plan's candidates in order, falling back on retryable failures, and
// return the first success with its routing metadata. Every attempt is recorded.
import { ApiError } from "../http/errors";
import { costMicrodollars } from "../metering/pricing";
import type { UpstreamError } from "../providers/types";
import type { CallContext, InferenceDeps } from "./context";
import type { PipelineResult } from "./types";
import { planAttempt, send, type AttemptPlan } from "./attempt";
import { buildRecord, ZERO_USAGE } from "./record";
import type { Prepared } from "./prepare";
import { routingMetadata, upstreamFailure, type AttemptLog } from "./outcome";

export async function runJson(deps: InferenceDeps, ctx: CallContext, prepared: Prepared): Promise<PipelineResult> {
  const log: AttemptLog[] = [];
  let last: { error: UpstreamError; provider: string } | null = null;
  const candidates = prepared.candidates;
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i]!;
    const now = Date.now();
    if (!deps.health.tryAcquireProbe(c.routeKey, now)) continue;
    const plan = planAttempt(deps, ctx.workspaceId, prepared, c, false);
    const attempt = log.length + 1;
    const t0 = performance.now();
    const p = c.provider;
    const out = await send(deps, plan, ctx.signal, new AbortController(), { headersMs: Math.min(p.connectTimeoutMs, p.timeoutMs), totalMs: p.timeoutMs, readBody: true });
    const latencyMs = performance.now() - t0;
    const isLast = i === candidates.length - 1;
    if (out.ok) {
      let parsed;
      try {
        parsed = plan.adapter.parseResponse(JSON.parse(out.text ?? ""), plan.target);
      } catch {
        const error: UpstreamError = { code: "provider_error", status: 502, retryable: true, message: `Provider '${c.provider.id}' sent a malformed response.` };
        last = recordFailure(deps, ctx, prepared, plan, attempt, isLast, error, latencyMs, now, log);
        continue;
      }
      const cost = costMicrodollars(parsed.usage, c.route);
      deps.health.recordSuccess(c.routeKey, { latencyMs, tps: tps(parsed.usage.outputTokens, latencyMs) }, Date.now());
      const record = buildRecord(ctx, prepared, plan, { attempt, final: true, statusCode: 200, success: true, latencyMs, ttftMs: null, usage: parsed.usage, costMicrodollars: cost, errorCode: null }, now);
      deps.records.enqueue(record);
      return { result: parsed, routing: routingMetadata(prepared, plan, cost, log, { throughputTps: tps(parsed.usage.outputTokens, latencyMs) }), apiKeySource: plan.apiKeySource };
    }
    if (out.cancelled) {
      deps.health.releaseProbe(c.routeKey);
      deps.records.enqueue(buildRecord(ctx, prepared, plan, { attempt, final: true, statusCode: 499, success: false, latencyMs, ttftMs: null, usage: ZERO_USAGE, costMicrodollars: 0, errorCode: "cancelled" }, now));
      throw new ApiError("invalid_request", "The client closed the request.");
    }
    const stop = !out.error.retryable;
    last = recordFailure(deps, ctx, prepared, plan, attempt, isLast || stop, out.error, latencyMs, now, log);
    if (stop) break;
  }
  throw upstreamFailure(last, log.length === 0);
}

function tps(outputTokens: number, ms: number): number | undefined {
  return outputTokens > 0 && ms > 0 ? (outputTokens * 1000) / ms : undefined;
}

function recordFailure(
  deps: InferenceDeps,
  ctx: CallContext,
  prepared: Prepared,
  plan: AttemptPlan,
  attempt: number,
  final: boolean,
  error: UpstreamError,
  latencyMs: number,
  startedAt: number,
  log: AttemptLog[],
) {
  const c = plan.candidate;
  if (error.code === "invalid_request") deps.health.releaseProbe(c.routeKey);
  else deps.health.recordFailure(c.routeKey, { retryAfterMs: error.retryAfterMs }, Date.now());
  const clientStatus = final ? upstreamFailure({ error, provider: c.provider.id }, false).status : error.status;
  deps.records.enqueue(
    buildRecord(ctx, prepared, plan, { attempt, final, statusCode: clientStatus, success: false, latencyMs, ttftMs: null, usage: ZERO_USAGE, costMicrodollars: 0, errorCode: error.code }, startedAt),
  );
  log.push({ provider: c.provider.id, provider_model_id: c.route.providerModelId, status: error.status, error_code: error.code });
  return { error, provider: c.provider.id };
}
