// Streaming calls. Before the first content event reaches the client an attempt may still fail over to
// the next candidate; after it, a failure ends the stream with a `failed` event instead. The committed
// stream reads the upstream one network chunk at a time (never buffering to the end), runs decode →
// translate → encode synchronously for what arrived, enforces the idle and total timeouts, writes SSE
// keep-alive comments during silences, and aborts the upstream request when the client goes away.
import type { StreamEvent, UpstreamError, Usage } from "../providers/types";
import { costMicrodollars } from "../metering/pricing";
import type { CallContext, InferenceDeps } from "./context";
import type { PipelineEvent } from "./types";
import { send, transportError, type AttemptPlan } from "./attempt";
import { runAttempts } from "./attempt-loop";
import { buildRecord, ZERO_USAGE } from "./record";
import type { Prepared } from "./prepare";
import { routingMetadata, upstreamFailure, type AttemptLog } from "./outcome";
import { UpstreamEvents } from "./upstream-events";
import { SyncTransform } from "./sync-transform";

/** Opens the committed stream as bytes of one interface's wire format. */
export type StreamOpener = (encoder: Transformer<PipelineEvent, Uint8Array>, keepAliveMs: number) => ReadableStream<Uint8Array>;

type Delta = Extract<StreamEvent, { type: "delta" }>;

interface Committed {
  plan: AttemptPlan;
  events: UpstreamEvents;
  /** What arrived before and with the first content: role-only deltas, then the first real one. */
  first: Delta[];
  usage: Usage | null;
  attempt: number;
  startedAt: number;
  t0: number;
  ttftMs: number;
}

type Opened = { ok: true; committed: Committed } | { ok: false; error: UpstreamError; cancelled: boolean; latencyMs: number };

/** Sends one attempt and waits for its first content event (within the first-byte timeout). */
async function open(deps: InferenceDeps, ctx: CallContext, plan: AttemptPlan, attempt: number, startedAt: number): Promise<Opened> {
  const p = plan.candidate.provider;
  const abort = new AbortController();
  const t0 = performance.now();
  const sent = await send(deps, plan, ctx.signal, abort, {
    headersMs: Math.min(p.connectTimeoutMs, p.firstByteTimeoutMs),
    readBody: false,
  });
  if (!sent.ok) return { ok: false, error: sent.error, cancelled: sent.cancelled, latencyMs: performance.now() - t0 };
  const events = new UpstreamEvents(sent.response.body!, plan.adapter, plan.target, abort);
  // The client may leave while we wait for the first token: stop the upstream at once.
  const onClientGone = () => events.cancel();
  ctx.signal.addEventListener("abort", onClientGone, { once: true });
  let usage: Usage | null = null;
  // Role-only deltas (Anthropic's message_start) are not content: an error right after them may still
  // fail over, and TTFT counts to the first real token.
  const early: Delta[] = [];
  const fail = (error: UpstreamError): Opened => {
    events.cancel();
    return { ok: false, error, cancelled: ctx.signal.aborted, latencyMs: performance.now() - t0 };
  };
  try {
    for (;;) {
      const r = await events.next(Math.max(1, p.firstByteTimeoutMs - (performance.now() - t0)));
      if (r.kind === "timeout")
        return fail({ code: "provider_timeout", status: 0, retryable: true, message: `Provider '${p.id}' sent no first token in time.` });
      if (r.kind === "broken") return fail(transportError(r.err, p.id));
      if (r.kind === "end")
        return fail({
          code: "provider_error",
          status: 502,
          retryable: true,
          message: `Provider '${p.id}' ended the stream without content.`,
        });
      const ev = r.event;
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
  onSettled: (costMicro: number, source: "platform" | "byok") => void,
): Promise<StreamOpener> {
  return runAttempts(deps, ctx, prepared, true, async (plan, attempt, log, startedAt) => {
    const opened = await open(deps, ctx, plan, attempt, startedAt);
    if (!opened.ok) return opened;
    const c = opened.committed;
    return { ok: true, value: (encoder, keepAliveMs) => committedStream(deps, ctx, prepared, c, log, onSettled, encoder, keepAliveMs) };
  });
}

const PING = new TextEncoder().encode(": keep-alive\n\n");

function isRoleOnly(ev: Delta): boolean {
  const d = ev.delta;
  return ev.finishReason === null && !d.content && !d.tool_calls?.length && !d.refusal;
}

function joined(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  return Buffer.concat(chunks);
}

function committedStream(
  deps: InferenceDeps,
  ctx: CallContext,
  prepared: Prepared,
  s: Committed,
  log: AttemptLog[],
  onSettled: (costMicro: number, source: "platform" | "byok") => void,
  encoder: Transformer<PipelineEvent, Uint8Array>,
  keepAliveMs: number,
): ReadableStream<Uint8Array> {
  const c = s.plan.candidate;
  const enc = new SyncTransform(encoder);
  let finished = false;
  let lastWrite = performance.now();
  let keepAlive: ReturnType<typeof setInterval> | undefined;

  const finish = (statusCode: number, errorCode: string | null) => {
    // Exactly once, whichever of end, failure or cancellation comes first.
    if (finished) return null;
    finished = true;
    clearInterval(keepAlive);
    const latencyMs = performance.now() - s.t0;
    const usage = s.usage ?? ZERO_USAGE;
    const cost = costMicrodollars(usage, c.route);
    const ok = errorCode === null;
    const genMs = latencyMs - s.ttftMs;
    const tps = usage.outputTokens > 0 && genMs > 0 ? (usage.outputTokens * 1000) / genMs : undefined;
    if (ok) deps.health.recordSuccess(c.routeKey, { ttftMs: s.ttftMs, tps, latencyMs }, Date.now());
    else if (errorCode === "cancelled") deps.health.releaseProbe(c.routeKey);
    else deps.health.recordFailure(c.routeKey, {}, Date.now());
    deps.records.enqueue(
      buildRecord(
        ctx,
        prepared,
        s.plan,
        { attempt: s.attempt, final: true, statusCode, success: ok, latencyMs, ttftMs: s.ttftMs, usage, costMicrodollars: cost, errorCode },
        s.startedAt,
      ),
    );
    onSettled(cost, s.plan.apiKeySource);
    return { usage, routing: routingMetadata(prepared, s.plan, cost, log, { ttftMs: s.ttftMs, throughputTps: tps }) };
  };
  const deadline = s.t0 + c.provider.streamTimeoutMs;
  const idleMs = c.provider.idleTimeoutMs;
  let sink: DirectController | null = null;
  const write = (out: Uint8Array[]): boolean => {
    if (out.length === 0 || !sink) return false;
    // No flush per write: Bun sends what was written when this task yields, so the chunks of one
    // network read leave together (a flush per chunk cost a third of a stream's CPU).
    sink.write(joined(out));
    lastWrite = performance.now();
    return true;
  };
  const end = (lastEvent: PipelineEvent) => {
    write([...enc.push(lastEvent), ...enc.end()]);
    sink?.close();
  };
  const fail = (error: UpstreamError) => {
    s.events.cancel();
    const api = upstreamFailure({ error, provider: c.provider.id }, false);
    const settled = finish(api.status, error.code);
    if (settled) end({ type: "failed", error: api.body().error, routing: settled.routing });
  };
  // The client going away aborts the upstream read below; the attempt is then recorded as cancelled.
  const onClientGone = () => s.events.cancel();
  ctx.signal.addEventListener("abort", onClientGone, { once: true });
  // A "direct" stream (Bun): chunks are written straight to the response sink, with no queue and no
  // pull() promise per chunk; Bun's own pass-through proxy path works the same way.
  const source = {
    type: "direct",
    async pull(controller: DirectController) {
      sink = controller;
      if (ctx.signal.aborted || finished) {
        // The client left between the commit and the first write.
        s.events.cancel();
        finish(499, "cancelled");
        return;
      }
      write(s.first.flatMap((ev) => [...enc.push(ev)]));
      keepAlive = setInterval(() => {
        if (performance.now() - lastWrite < keepAliveMs * 0.9) return;
        sink?.write(PING);
        sink?.flush();
        lastWrite = performance.now();
      }, keepAliveMs);
      try {
        for (;;) {
          const left = deadline - performance.now();
          const totalBound = left <= idleMs;
          const r = await s.events.next(Math.max(1, Math.min(idleMs, left)));
          if (ctx.signal.aborted || finished) {
            finish(499, "cancelled");
            return;
          }
          if (r.kind === "event") {
            const ev = r.event;
            if (ev.type === "delta") write(enc.push(ev));
            else if (ev.type === "usage") s.usage = ev.usage;
            else return fail(ev.error);
            continue;
          }
          if (r.kind === "end") {
            const settled = finish(200, null);
            return settled ? end({ type: "done", ...settled }) : undefined;
          }
          if (r.kind === "timeout") {
            const message = totalBound
              ? `Provider '${c.provider.id}' stream exceeded its total time limit.`
              : `Provider '${c.provider.id}' went silent mid-stream.`;
            return fail({ code: "provider_timeout", status: 0, retryable: false, message });
          }
          return fail(transportError(r.err, c.provider.id));
        }
      } catch {
        // The sink refused a write: the client is gone.
        s.events.cancel();
        finish(499, "cancelled");
      } finally {
        clearInterval(keepAlive);
        ctx.signal.removeEventListener("abort", onClientGone);
      }
    },
    cancel() {
      s.events.cancel();
      finish(499, "cancelled");
    },
  };
  return new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
}

/** Bun's controller for `type: "direct"` streams (not in the DOM typings). */
interface DirectController {
  write(chunk: Uint8Array): number | Promise<number>;
  flush(): number | Promise<number> | undefined;
  close(): void;
}
