// Streaming calls. Before the first content event reaches the client an attempt may still fail over to
// the next candidate (the shared loop in attempt-loop.ts); after it, the committed stream
// (committed-stream.ts) serves the client, and a failure ends the stream with a `failed` event instead.
// Each attempt's lifecycle, its limits and the client's departure are its session's (stream-session.ts).
import type { RawEvent, UpstreamError, Usage } from "../providers/types";
import type { ProviderEntry } from "../catalog/types";
import type { CallContext, InferenceDeps, ServedBy } from "./context";
import type { CallTiming, PipelineEvent } from "./types";
import { send, transportError, type AttemptPlan } from "./attempt";
import { runAttempts } from "./attempt-loop";
import type { Prepared } from "./prepare";
import { UpstreamEvents } from "./upstream-events";
import { CLIENT_GONE_DRAIN_MS, committedStream, type Committed, type Delta } from "./committed-stream";
import { StreamSession, type SessionLimits } from "./stream-session";
import { UpstreamAbort } from "../platform/upstream-abort";

/** Opens the committed stream as bytes of one interface's wire format (the encoder writes its SSE text). */
export interface StreamOpener {
  (encoder: Transformer<PipelineEvent, string>, keepAliveMs: number): ReadableStream<Uint8Array>;
  /** The call's clock readings, shared with its committed stream (interface-call.ts sets the start and the head's overhead). */
  timing: CallTiming;
}

type Opened = { ok: true; committed: Committed } | { ok: false; error: UpstreamError; cancelled: boolean; latencyMs: number };

function limitsOf(deps: InferenceDeps, p: ProviderEntry): SessionLimits {
  return {
    connectMs: Math.min(p.connectTimeoutMs, p.firstByteTimeoutMs),
    firstByteMs: p.firstByteTimeoutMs,
    idleMs: p.idleTimeoutMs,
    totalMs: p.streamTimeoutMs,
    drainMs: deps.clientGoneDrainMs ?? CLIENT_GONE_DRAIN_MS,
  };
}

const clientGone = () => new DOMException("client gone", "AbortError");

/**
 * Sends one attempt and waits for its first content event. Its session watches the deadlines until
 * then and the client's departure (which stops the upstream: the attempt ends cancelled); once the
 * content is in, the session goes on with the committed stream.
 */
async function open(
  deps: InferenceDeps,
  ctx: CallContext,
  plan: AttemptPlan,
  attempt: number,
  startedAt: number,
  timing: CallTiming,
): Promise<Opened> {
  const p = plan.candidate.provider;
  const abort = new UpstreamAbort();
  const session = new StreamSession(limitsOf(deps, p), abort);
  const failed = (error: UpstreamError, cancelled: boolean): Opened => {
    session.settle();
    return { ok: false, error, cancelled: cancelled || session.clientGone, latencyMs: session.now() - session.t0 };
  };
  let events: UpstreamEvents | null = null;
  try {
    session.watch(ctx);
    const sent = await send(deps, plan, ctx, abort, { readBody: false });
    if (!sent.ok) return failed(sent.error, sent.cancelled);
    events = new UpstreamEvents(sent.response, plan.adapter, plan.target, abort);
    session.headers(events);
    let usage: Usage | null = null;
    // Role-only deltas (Anthropic's message_start) are not content: an error right after them may still
    // fail over, and TTFT counts to the first real token.
    const early: (Delta | RawEvent)[] = [];
    const fail = (error: UpstreamError): Opened => {
      events!.cancel();
      return failed(error, false);
    };
    for (;;) {
      const ev = await events.next();
      if (session.clientGone) return fail(transportError(clientGone(), p.id));
      if (ev.type === "timeout")
        return fail({ code: "provider_timeout", status: 0, retryable: true, message: `Provider '${p.id}' sent no first token in time.` });
      if (ev.type === "broken") return fail(transportError(ev.err, p.id));
      if (ev.type === "end")
        return fail({
          code: "provider_error",
          status: 502,
          retryable: true,
          message: `Provider '${p.id}' ended the stream without content.`,
        });
      if (ev.type === "usage") usage = ev.usage;
      else if (ev.type === "error") return fail(ev.error);
      else if (isRoleOnly(ev)) early.push(ev);
      else {
        session.commit();
        const ttftMs = session.now() - session.t0;
        deps.health.recordFirstToken(plan.candidate.routeKey, ttftMs, Date.now());
        return { ok: true, committed: { plan, events, session, first: [...early, ev], usage, attempt, startedAt, ttftMs, timing } };
      }
    }
  } catch (err) {
    // A broken invariant: the attempt's timers and listener must not outlive it.
    events?.cancel();
    session.settle();
    throw err;
  }
}

export function runStream(
  deps: InferenceDeps,
  ctx: CallContext,
  prepared: Prepared,
  onSettled: (costMicro: number, served: ServedBy) => void,
): Promise<StreamOpener> {
  // The upstreams' share is every failed attempt's time and the served one's until its first content: the
  // gateway waits for that content before it commits to an attempt (it may still fail over until then).
  const timing: CallTiming = { startedAt: performance.now(), upstreamMs: 0, overheadMs: 0 };
  return runAttempts(deps, ctx, prepared, true, async (plan, attempt, log, startedAt) => {
    const opened = await open(deps, ctx, plan, attempt, startedAt, timing);
    if (!opened.ok) {
      timing.upstreamMs += opened.latencyMs;
      return opened;
    }
    const c = opened.committed;
    timing.upstreamMs += c.ttftMs;
    const site = { deps, ctx, prepared, log, onSettled };
    const opener = ((encoder, keepAliveMs) => committedStream(site, c, encoder, keepAliveMs)) as StreamOpener;
    opener.timing = timing;
    return { ok: true, value: opener };
  });
}

/** Not the answer yet: a role-only delta, or a native event before the content (message_start, response.created). */
function isRoleOnly(ev: Delta | RawEvent): boolean {
  if (ev.type === "raw") return !ev.content;
  const d = ev.delta;
  return ev.finishReason === null && !d.content && !d.tool_calls?.length && !d.refusal && !hasText(d.extra);
}

/** A delta field the chat model has no name for that carries text (reasoning_content): the answer has begun. */
function hasText(extra: Record<string, unknown> | undefined): boolean {
  if (extra === undefined) return false;
  for (const k in extra) if (typeof extra[k] === "string" && extra[k] !== "") return true;
  return false;
}
