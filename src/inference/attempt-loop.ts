// The fallback loop shared by JSON and streaming calls: try the plan's candidates in order (skipping a
// half-open route whose probe another call holds), record every failed attempt, move on after a
// retryable failure, stop at a caller error, and turn the last failure into the client's error.
import type { UpstreamError } from "../providers/types";
import type { CallContext, InferenceDeps } from "./context";
import { planAttempt, type AttemptPlan } from "./attempt";
import { buildRecord, ZERO_USAGE } from "./record";
import type { Prepared } from "./prepare";
import { upstreamFailure, type AttemptLog } from "./outcome";

export type TryResult<T> = { ok: true; value: T } | { ok: false; error: UpstreamError; cancelled: boolean; latencyMs: number };

/** One attempt; `log` holds the attempts before it (for routing_metadata.attempts). */
export type TryOne<T> = (plan: AttemptPlan, attempt: number, log: AttemptLog[], startedAt: number) => Promise<TryResult<T>>;

export async function runAttempts<T>(
  deps: InferenceDeps,
  ctx: CallContext,
  prepared: Prepared,
  stream: boolean,
  tryOne: TryOne<T>,
): Promise<T> {
  const log: AttemptLog[] = [];
  let last: { error: UpstreamError; provider: string } | null = null;
  const candidates = prepared.candidates;
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i]!;
    const startedAt = Date.now();
    if (!deps.health.tryAcquireProbe(c.routeKey, startedAt)) continue;
    const plan = planAttempt(deps, ctx.workspaceId, prepared, c, stream, ctx.endpoint);
    const attempt = log.length + 1;
    const r = await tryOne(plan, attempt, log, startedAt);
    if (r.ok) return r.value;
    const { error, latencyMs } = r;
    const failure = { attempt, success: false, latencyMs, ttftMs: null, usage: ZERO_USAGE, costMicrodollars: 0 };
    if (r.cancelled) {
      deps.health.releaseProbe(c.routeKey);
      deps.records.enqueue(
        buildRecord(ctx, prepared, plan, { ...failure, final: true, statusCode: 499, errorCode: "cancelled" }, startedAt),
      );
      throw upstreamFailure({ error, provider: c.provider.id }, false);
    }
    // A caller error says nothing about the route's health; anything else counts against it.
    if (error.code === "invalid_request") deps.health.releaseProbe(c.routeKey);
    else deps.health.recordFailure(c.routeKey, { retryAfterMs: error.retryAfterMs }, Date.now());
    const final = i === candidates.length - 1 || !error.retryable;
    const statusCode = final ? upstreamFailure({ error, provider: c.provider.id }, false).status : error.status;
    deps.records.enqueue(buildRecord(ctx, prepared, plan, { ...failure, final, statusCode, errorCode: error.code }, startedAt));
    log.push({ provider: c.provider.id, provider_model_id: c.route.providerModelId, status: error.status, error_code: error.code });
    last = { error, provider: c.provider.id };
    if (!error.retryable) break;
  }
  throw upstreamFailure(last, log.length === 0);
}
