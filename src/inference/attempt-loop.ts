// The fallback loop shared by JSON and streaming calls: try the plan's candidates in order (skipping a
// half-open route whose probe another call holds), record every failed attempt, move on after a
// retryable failure, stop at a caller error, and turn the last failure into the client's error.
import type { UpstreamError } from "../providers/types";
import { ApiError } from "../http/errors";
import type { CallContext, InferenceDeps } from "./context";
import { planAttempt, type AttemptPlan } from "./attempt";
import { buildRecord, ZERO_USAGE, type AttemptOutcome } from "./record";
import type { Prepared } from "./prepare";
import { upstreamFailure, type AttemptLog } from "./outcome";
import { isProviderFault } from "../routing/fault";
import { rememberSticky } from "./sticky/route";

export type TryResult<T> = { ok: true; value: T } | { ok: false; error: UpstreamError; cancelled: boolean; latencyMs: number };

/** One attempt; `log` holds the attempts before it (for routing_metadata.attempts). */
export type TryOne<T> = (plan: AttemptPlan, attempt: number, log: AttemptLog[], startedAt: number) => Promise<TryResult<T>>;

/**
 * Reports a failed attempt to the route's health: the provider's own failures count against the route
 * (with the workspace, so that one tenant alone cannot open a shared route's circuit); a failure the
 * tenant caused itself (a bad request, its BYOK key refused or rate limited, a long generation's
 * whole-attempt timeout) only frees the probe slot.
 */
export function reportFailure(deps: InferenceDeps, workspaceId: string, plan: AttemptPlan, error: UpstreamError): void {
  const key = plan.candidate.routeKey;
  if (isProviderFault(error, plan.apiKeySource))
    deps.health.recordFailure(key, { retryAfterMs: error.retryAfterMs, workspaceId, status: error.status, code: error.code }, Date.now());
  else deps.health.releaseProbe(key);
}

export async function runAttempts<T>(
  deps: InferenceDeps,
  ctx: CallContext,
  prepared: Prepared,
  stream: boolean,
  tryOne: TryOne<T>,
): Promise<T> {
  const log: AttemptLog[] = [];
  let last: { error: UpstreamError; provider: string } | null = null;
  // The latest failure's record waits until we know whether another attempt follows (a later
  // candidate may be skipped), so that exactly one record of the call is final.
  let held: { plan: AttemptPlan; failure: AttemptOutcome; startedAt: number } | null = null;
  const release = (final: boolean) => {
    if (!held) return;
    const statusCode = final && last ? upstreamFailure(last, false).status : held.failure.statusCode;
    deps.records.enqueue(buildRecord(ctx, prepared, held.plan, { ...held.failure, final, statusCode }, held.startedAt));
    held = null;
  };
  try {
    let unpaid = false;
    for (const c of prepared.candidates) {
      const startedAt = Date.now();
      const plan = planAttempt(deps, ctx.workspaceId, prepared, c, stream, ctx.endpoint);
      // Credits are checked per attempt: a fallback from a BYOK key to a platform key needs them too.
      if (plan.apiKeySource === "platform" && !deps.guards.platformAllowed(ctx)) {
        unpaid = true;
        continue;
      }
      if (!deps.health.tryAcquireProbe(c.routeKey, startedAt, ctx.workspaceId)) continue;
      const attempt = log.length + 1;
      release(false);
      ctx.span?.attemptStarted(plan, attempt);
      const r = await tryOne(plan, attempt, log, startedAt);
      if (r.ok) {
        rememberSticky(deps, ctx, c);
        return r.value;
      }
      const { error, latencyMs } = r;
      ctx.span?.attemptFailed(error, r.cancelled);
      const failure = { attempt, final: false, success: false, latencyMs, ttftMs: null, usage: ZERO_USAGE, costMicrodollars: 0 };
      if (r.cancelled) {
        deps.health.releaseProbe(c.routeKey);
        deps.records.enqueue(
          buildRecord(ctx, prepared, plan, { ...failure, final: true, statusCode: 499, errorCode: "cancelled" }, startedAt),
        );
        throw upstreamFailure({ error, provider: c.provider.id }, false);
      }
      reportFailure(deps, ctx.workspaceId, plan, error);
      held = { plan, failure: { ...failure, statusCode: error.status, errorCode: error.code }, startedAt };
      log.push({ provider: c.provider.id, provider_model_id: c.route.providerModelId, status: error.status, error_code: error.code });
      last = { error, provider: c.provider.id };
      if (!error.retryable) break;
    }
    release(true);
    if (log.length === 0 && unpaid) {
      throw new ApiError("insufficient_credits", "The workspace's credit balance is not positive; add credit to continue.");
    }
    throw upstreamFailure(last, log.length === 0);
  } finally {
    // A success or a cancellation ends the loop with an earlier failure still held: it was not final.
    release(false);
  }
}
