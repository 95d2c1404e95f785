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

interface Committed {
  plan: AttemptPlan;
  events: UpstreamEvents;
  first: Extract<StreamEvent, { type: "delta" }>;
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
  const sent = await send(deps, plan, ctx.signal, abort, { headersMs: Math.min(p.connectTimeoutMs, p.firstByteTimeoutMs), readBody: false });
  if (!sent.ok) return { ok: false, error: sent.error, cancelled: sent.cancelled, latencyMs: performance.now() - t0 };
  const events = new UpstreamEvents(sent.response.body!, plan.adapter, plan.target, abort);
  // The client may leave while we wait for the first token: stop the upstream at once.
  const onClientGone = () => events.cancel();
  ctx.signal.addEventListener("abort", onClientGone, { once: true });
  let usage: Usage | null = null;
  const fail = (error: UpstreamError): Opened => {
    events.cancel();
    return { ok: false, error, cancelled: ctx.signal.aborted, latencyMs: performance.now() - t0 };
  };
  try {
    for (;;) {
      const r = await events.next(Math.max(1, p.firstByteTimeoutMs - (performance.now() - t0)));
      if (r.kind === "timeout") return fail({ code: "provider_timeout", status: 0, retryable: true, message: `Provider '${p.id}' sent no first token in time.` });
      if (r.kind === "broken") return fail(transportError(r.err, p.id));
      if (r.kind === "end") return fail({ code: "provider_error", status: 502, retryable: true, message: `Provider '${p.id}' ended the stream without content.` });
      const ev = r.event;
      if (ev.type === "usage") usage = ev.usage;
      else if (ev.type === "error") return fail(ev.error);
      else return { ok: true, committed: { plan, events, first: ev, usage, attempt, startedAt, t0, ttftMs: performance.now() - t0 } };
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
      buildRecord(ctx, prepared, s.plan, { attempt: s.attempt, final: true, statusCode, success: ok, latencyMs, ttftMs: s.ttftMs, usage, costMicrodollars: cost, errorCode }, s.startedAt),
    );
    onSettled(cost, s.plan.apiKeySource);
    return { usage, routing: routingMetadata(prepared, s.plan, cost, log, { ttftMs: s.ttftMs, throughputTps: tps }) };
  };
  const write = (controller: ReadableStreamDefaultController<Uint8Array>, out: Uint8Array[]) => {
    if (out.length === 0) return false;
    controller.enqueue(joined(out));
    lastWrite = performance.now();
    return true;
  };
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, error: UpstreamError) => {
    s.events.cancel();
    const api = upstreamFailure({ error, provider: c.provider.id }, false);
    const { routing } = finish(api.status, error.code);
    write(controller, [...enc.push({ type: "failed", error: api.body().error, routing }), ...enc.end()]);
    controller.close();
  };
  const deadline = s.t0 + c.provider.streamTimeoutMs;
  const idleMs = c.provider.idleTimeoutMs;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        write(controller, [...enc.push(s.first)]);
        keepAlive = setInterval(() => {
          if (performance.now() - lastWrite >= keepAliveMs * 0.9) {
            controller.enqueue(PING);
            lastWrite = performance.now();
          }
        }, keepAliveMs);
      },
      async pull(controller) {
        for (;;) {
          const left = deadline - performance.now();
          const totalBound = left <= idleMs;
          const r = await s.events.next(Math.max(1, Math.min(idleMs, left)));
          if (r.kind === "event") {
            const ev = r.event;
            if (ev.type === "delta") {
              if (write(controller, enc.push(ev))) return;
              continue;
            }
            if (ev.type === "usage") {
              s.usage = ev.usage;
              continue;
            }
            return fail(controller, ev.error);
          }
          if (r.kind === "end") {
            const { usage, routing } = finish(200, null);
            write(controller, [...enc.push({ type: "done", usage, routing }), ...enc.end()]);
            return controller.close();
          }
          if (r.kind === "timeout") {
            const message = totalBound ? `Provider '${c.provider.id}' stream exceeded its total time limit.` : `Provider '${c.provider.id}' went silent mid-stream.`;
            return fail(controller, { code: "provider_timeout", status: 0, retryable: false, message });
          }
          return fail(controller, transportError(r.err, c.provider.id));
        }
      },
      cancel() {
        s.events.cancel();
        if (!finished) finish(499, "cancelled");
      },
    },
    { highWaterMark: 0 },
  );
}
