// Non-streaming calls: the first candidate that answers well wins; its usage, cost and routing
// metadata are settled here. Fallback and failure records are the shared loop's (attempt-loop.ts).
import { costMicrodollars } from "../metering/pricing";
import type { CallContext, InferenceDeps } from "./context";
import type { PipelineResult } from "./types";
import { send } from "./attempt";
import { buildRecord } from "./record";
import type { Prepared } from "./prepare";
import { routingMetadata } from "./outcome";
import { runAttempts } from "./attempt-loop";
import { UpstreamAbort } from "../platform/upstream-abort";
import { rememberServed } from "./responses/follow-up";

const tps = (outputTokens: number, ms: number): number | undefined => (outputTokens > 0 && ms > 0 ? (outputTokens * 1000) / ms : undefined);

export function runJson(deps: InferenceDeps, ctx: CallContext, prepared: Prepared): Promise<PipelineResult> {
  // Every attempt's wait on its upstream, failed ones included: the rest of the call is the gateway's own time.
  let upstreamMs = 0;
  return runAttempts(deps, ctx, prepared, false, async (plan, attempt, log, startedAt) => {
    const c = plan.candidate;
    const p = c.provider;
    const t0 = performance.now();
    const out = await send(deps, plan, ctx, new UpstreamAbort(), {
      headersMs: Math.min(p.connectTimeoutMs, p.timeoutMs),
      totalMs: p.timeoutMs,
      readBody: true,
    });
    const latencyMs = performance.now() - t0;
    upstreamMs += latencyMs;
    if (!out.ok) return { ok: false, error: out.error, cancelled: out.cancelled, latencyMs };
    let result;
    try {
      result = plan.adapter.parseResponse(JSON.parse(out.text ?? ""), plan.target);
    } catch {
      return {
        ok: false,
        error: { code: "provider_error", status: 502, retryable: true, message: `Provider '${p.id}' sent a malformed response.` },
        cancelled: false,
        latencyMs,
      };
    }
    const cost = costMicrodollars(result.usage, c.route);
    const throughputTps = tps(result.usage.outputTokens, latencyMs);
    deps.health.recordSuccess(c.routeKey, { latencyMs, tps: throughputTps }, Date.now());
    deps.records.enqueue(
      buildRecord(
        ctx,
        prepared,
        plan,
        {
          attempt,
          final: true,
          statusCode: 200,
          success: true,
          latencyMs,
          ttftMs: null,
          usage: result.usage,
          costMicrodollars: cost,
          errorCode: null,
        },
        startedAt,
      ),
    );
    const routing = routingMetadata(prepared, plan, cost, log, { throughputTps });
    const value: PipelineResult = { result, routing, apiKeySource: plan.apiKeySource, upstreamMs };
    if (plan.native) {
      value.nativeText = out.text!;
      rememberServed(deps, ctx, prepared, plan, result.id);
    }
    return { ok: true, value };
  });
}
