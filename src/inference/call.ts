// One inference call end to end, for any interface: prepare (validate gateway fields, resolve models,
// plan routes), admit (credits, budgets), run (JSON or stream), settle. Interfaces only translate.
import type { Endpoint } from "../catalog/types";
import { estimateMaxCostMicrodollars } from "../metering/pricing";
import type { CallContext, InferenceDeps } from "./context";
import { prepareCall, type IncomingCall, type Prepared } from "./prepare";
import { runJson } from "./run-json";
import { runStream, type StreamOpener } from "./run-stream";
import type { PipelineResult } from "./types";

export type CallOutput =
  | { kind: "json"; result: PipelineResult; headers: Record<string, string> }
  | { kind: "stream"; open: StreamOpener; headers: Record<string, string> };

function promptChars(p: Prepared): number {
  let n = 0;
  for (const m of p.request.messages) {
    if (typeof m.content === "string") n += m.content.length;
    else if (Array.isArray(m.content))
      for (const part of m.content) n += part.type === "text" ? (part as { text: string }).text.length : 1000;
  }
  return n;
}

/** Worst case over the plan: the most expensive candidate at the largest output the request allows. */
function maxCost(p: Prepared): number {
  const chars = promptChars(p);
  const asked = p.request.max_completion_tokens ?? p.request.max_tokens;
  let worst = 0;
  for (const c of p.candidates) {
    const out = Math.min(asked ?? c.route.maxOutputTokens, c.route.maxOutputTokens);
    worst = Math.max(worst, estimateMaxCostMicrodollars({ promptChars: chars }, out, c.route));
  }
  return worst;
}

export async function runCall(
  deps: InferenceDeps,
  ctx: CallContext,
  incoming: IncomingCall,
  endpoint: Endpoint,
  stream: boolean,
): Promise<CallOutput> {
  const prepared = prepareCall(deps, ctx, incoming, endpoint);
  // Reserve against the first candidate: the one that serves the call unless it fails over.
  const first = prepared.candidates[0]!;
  const hasByok = (providerId: string) => deps.byok.defaultKeyFor(ctx.workspaceId, providerId) !== null;
  const admitting = deps.guards.admit(ctx, {
    maxCostMicrodollars: maxCost(prepared),
    provider: first.provider.id,
    byok: hasByok(first.provider.id),
    anyByok: prepared.candidates.some((c) => hasByok(c.provider.id)),
  });
  // The memory stores admit synchronously: no await (and its resumption) then.
  const admitted = admitting instanceof Promise ? await admitting : admitting;
  if (!admitted.ok) throw admitted.error;
  const { admission } = admitted;
  const headers: Record<string, string> = {};
  try {
    if (!stream) {
      const result = await runJson(deps, ctx, prepared);
      admission.settle(result.routing.cost.microdollars, { provider: result.routing.provider, byok: result.apiKeySource === "byok" });
      const pending = deps.guards.successHeaders(ctx, headers);
      if (pending) await pending;
      return { kind: "json", result, headers };
    }
    const open = await runStream(deps, ctx, prepared, (cost, served) => admission.settle(cost, served));
    const pending = deps.guards.successHeaders(ctx, headers);
    if (pending) await pending;
    return { kind: "stream", open, headers };
  } catch (err) {
    admission.release();
    throw err;
  }
}

export function callContext(
  base: Omit<CallContext, "traceId" | "userId" | "tags" | "customFields">,
  metadata: { trace_id?: string; user_id?: string; tags?: string[]; custom_fields?: Record<string, string> } | undefined,
): CallContext {
  return {
    ...base,
    traceId: metadata?.trace_id ?? null,
    userId: metadata?.user_id ?? null,
    tags: metadata?.tags ?? null,
    customFields: metadata?.custom_fields ?? null,
  };
}
