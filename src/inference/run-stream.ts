// Streaming calls. Before the first content event reaches the client an attempt may still fail over to
// the next candidate (the shared loop in attempt-loop.ts); after it, the committed stream
// (committed-stream.ts) serves the client, and a failure ends the stream with a `failed` event instead.
import type { RawEvent, UpstreamError, Usage } from "../providers/types";
import type { CallContext, InferenceDeps, ServedBy } from "./context";
import type { PipelineEvent } from "./types";
import { send, transportError, type AttemptPlan } from "./attempt";
import { runAttempts } from "./attempt-loop";
import type { Prepared } from "./prepare";
import { UpstreamEvents } from "./upstream-events";
import { committedStream, type Committed, type Delta } from "./committed-stream";
import { UpstreamAbort } from "../platform/upstream-abort";

/** Opens the committed stream as bytes of one interface's wire format (the encoder writes its SSE text). */
export type StreamOpener = (encoder: Transformer<PipelineEvent, string>, keepAliveMs: number) => ReadableStream<Uint8Array>;

type Opened = { ok: true; committed: Committed } | { ok: false; error: UpstreamError; cancelled: boolean; latencyMs: number };

/** Sends one attempt and waits for its first content event (within the first-byte timeout). */
async function open(deps: InferenceDeps, ctx: CallContext, plan: AttemptPlan, attempt: number, startedAt: number): Promise<Opened> {
  const p = plan.candidate.provider;
  const abort = new UpstreamAbort();
  const t0 = performance.now();
  const sent = await send(deps, plan, ctx, abort, {
    headersMs: Math.min(p.connectTimeoutMs, p.firstByteTimeoutMs),
    readBody: false,
  });
  if (!sent.ok) return { ok: false, error: sent.error, cancelled: sent.cancelled, latencyMs: performance.now() - t0 };
  const events = new UpstreamEvents(sent.response, plan.adapter, plan.target, abort);
  // The client may leave while we wait for the first token: stop the upstream at once.
  const onClientGone = () => events.cancel();
  ctx.signal.addEventListener("abort", onClientGone, { once: true });
  let usage: Usage | null = null;
  // Role-only deltas (Anthropic's message_start) are not content: an error right after them may still
  // fail over, and TTFT counts to the first real token.
  const early: (Delta | RawEvent)[] = [];
  const fail = (error: UpstreamError): Opened => {
    events.cancel();
    return { ok: false, error, cancelled: ctx.signal.aborted, latencyMs: performance.now() - t0 };
  };
  try {
    for (;;) {
      const ev = await events.next(Math.max(1, p.firstByteTimeoutMs - (performance.now() - t0)));
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
      else
        return {
          ok: true,
          committed: { plan, events, first: [...early, ev], usage, attempt, startedAt, t0, ttftMs: performance.now() - t0 },
        };
    }
  } finally {
    ctx.signal.removeEventListener("abort", onClientGone);
  }
}

export function runStream(
  deps: InferenceDeps,
  ctx: CallContext,
  prepared: Prepared,
  onSettled: (costMicro: number, served: ServedBy) => void,
): Promise<StreamOpener> {
  return runAttempts(deps, ctx, prepared, true, async (plan, attempt, log, startedAt) => {
    const opened = await open(deps, ctx, plan, attempt, startedAt);
    if (!opened.ok) return opened;
    const c = opened.committed;
    const site = { deps, ctx, prepared, log, onSettled };
    return { ok: true, value: (encoder, keepAliveMs) => committedStream(site, c, encoder, keepAliveMs) };
  });
}

/** Not the answer yet: a role-only delta, or a native event before the content (message_start, response.created). */
function isRoleOnly(ev: Delta | RawEvent): boolean {
  if (ev.type === "raw") return !ev.content;
  const d = ev.delta;
  return ev.finishReason === null && !d.content && !d.tool_calls?.length && !d.refusal;
}
