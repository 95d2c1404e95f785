// One inference call end to end, for any interface: prepare (validate gateway fields, resolve models,
// plan routes), admit (credits, budgets), run (JSON or stream), settle. Interfaces only translate.
import type { Endpoint } from "../catalog/types";
import type { CallContext, InferenceDeps, ServedBy } from "./context";
import { prepareCall, type IncomingCall } from "./prepare";
import { maxCostMicrodollars } from "./max-cost";
import { recallFollowUp } from "./responses/follow-up";
import { lookupSticky, type StickyState } from "./sticky/route";
import { runJson } from "./run-json";
import { runStream, type StreamOpener } from "./run-stream";
import type { PipelineEvent, PipelineResult } from "./types";
import type { Candidate } from "../routing/types";
import type { CallSpan } from "../observability/tracing/types";
import { tagTraceId } from "../observability/tracing/trace-tag";

export type CallOutput =
  | { kind: "json"; result: PipelineResult; headers: Record<string, string> }
  | { kind: "stream"; open: StreamOpener; headers: Record<string, string> };

// Plain functions rather than closures made per call.
function hasByok(deps: InferenceDeps, workspaceId: string, c: Candidate): boolean {
  return deps.byok.defaultKeyFor(workspaceId, c.provider.id) !== null;
}

function anyByok(deps: InferenceDeps, workspaceId: string, candidates: readonly Candidate[]): boolean {
  for (const c of candidates) if (hasByok(deps, workspaceId, c)) return true;
  return false;
}

export function runCall(
  deps: InferenceDeps,
  ctx: CallContext,
  incoming: IncomingCall,
  endpoint: Endpoint,
  stream: boolean,
): Promise<CallOutput> {
  // Tracing off: this one check is all it costs (no async wrapper either).
  const tracing = deps.tracing;
  if (tracing === undefined) return call(deps, ctx, incoming, endpoint, stream, undefined);
  const span = tracing.startCall(ctx.headers, endpoint);
  ctx.span = span;
  if (ctx instanceof RequestCallContext) ctx.tagTrace(span.traceId);
  return failedInSpan(span, call(deps, ctx, incoming, endpoint, stream, span));
}

/** A call that fails ends its SERVER span with the error (an answer ends it itself: a stream's when it settles). */
async function failedInSpan(span: CallSpan, out: Promise<CallOutput>): Promise<CallOutput> {
  try {
    return await out;
  } catch (err) {
    span.failed(err);
    throw err;
  }
}

async function call(
  deps: InferenceDeps,
  ctx: CallContext,
  incoming: IncomingCall,
  endpoint: Endpoint,
  stream: boolean,
  span: CallSpan | undefined,
): Promise<CallOutput> {
  // A Responses follow-up goes where its response lives (the shared store may answer asynchronously).
  const recalled = recallFollowUp(deps, ctx, incoming.native);
  // The conversation's cache route, for the planner (ctx.sticky); a promise only when Redis is asked.
  const sticky = lookupSticky(deps, ctx, incoming);
  if (sticky) await sticky;
  const prepared = prepareCall(deps, ctx, incoming, endpoint, recalled instanceof Promise ? await recalled : recalled);
  span?.prepared(prepared);
  // Reserve against the first candidate: the one that serves the call unless it fails over.
  const first = prepared.candidates[0]!;
  const byok = hasByok(deps, ctx.workspaceId, first);
  const admitting = deps.guards.admit(ctx, {
    maxCostMicrodollars: maxCostMicrodollars(prepared),
    provider: first.provider.id,
    byok,
    anyByok: byok || anyByok(deps, ctx.workspaceId, prepared.candidates),
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
      span?.answered(result);
      const pending = deps.guards.successHeaders(ctx, headers);
      if (pending) await pending;
      return { kind: "json", result, headers };
    }
    const onSettled = span
      ? (cost: number, served: ServedBy) => {
          admission.settle(cost, served);
          span.settled(cost);
        }
      : (cost: number, served: ServedBy) => admission.settle(cost, served);
    const open = await runStream(deps, ctx, prepared, onSettled);
    const pending = deps.guards.successHeaders(ctx, headers);
    if (pending) await pending;
    return { kind: "stream", open: span ? observed(open, span) : open, headers };
  } catch (err) {
    admission.release();
    throw err;
  }
}

/** The stream with its encoder watched by the call's span (its other fields, such as its timing, kept). */
function observed(open: StreamOpener, span: CallSpan): StreamOpener {
  const watched = (encoder: Transformer<PipelineEvent, string>, keepAliveMs: number) => open(span.observe(encoder), keepAliveMs);
  return Object.assign(watched, open);
}

/**
 * A call's context. The client's signal is the request's, read on first use only (AbortSweeper's
 * ClientSide): Bun makes it then, at a cost most JSON calls never need to pay (platform/abort-sweeper.ts).
 * A class, so that the getter is shared rather than a closure per call.
 */
class RequestCallContext implements CallContext {
  readonly traceId: string | null;
  readonly userId: string | null;
  readonly tags: string[] | null;
  readonly customFields: Record<string, string> | null;
  /** Set before planning (sticky/route.ts); declared so that every context has one shape. */
  sticky: StickyState | undefined = undefined;
  /** The call's spans when tracing is on (set by runCall). */
  span: CallSpan | undefined = undefined;

  constructor(
    readonly requestId: string,
    readonly workspaceId: string,
    readonly apiKeyId: string,
    readonly endpoint: CallContext["endpoint"],
    private readonly request: { readonly signal: AbortSignal; readonly headers: Headers },
    metadata: CallMetadata | undefined,
  ) {
    this.traceId = metadata?.trace_id ?? null;
    this.userId = metadata?.user_id ?? null;
    this.tags = metadata?.tags ?? null;
    this.customFields = metadata?.custom_fields ?? null;
  }

  /** The request carries its trace's ID for its log line (http/edge.ts). */
  tagTrace(traceId: string): void {
    tagTraceId(this.request, traceId);
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }

  get headers(): Headers {
    return this.request.headers;
  }
}

type CallMetadata = { trace_id?: string; user_id?: string; tags?: string[]; custom_fields?: Record<string, string> };

/** The context of a call made by `request` (whose signal is read only when needed). */
export function callContext(
  base: Pick<CallContext, "requestId" | "workspaceId" | "apiKeyId" | "endpoint"> & {
    request: { readonly signal: AbortSignal; readonly headers: Headers };
  },
  metadata: CallMetadata | undefined,
): CallContext {
  return new RequestCallContext(base.requestId, base.workspaceId, base.apiKeyId, base.endpoint, base.request, metadata);
}
