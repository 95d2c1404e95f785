// Streaming calls. Before the first content event reaches the client an attempt may still fail over to
// the next candidate; after it, a failure ends the stream with a `failed` event instead. The committed
// stream pulls upstream events one at a time (no buffering), with the idle timeout between them, and
// aborts the upstream request when the client goes away.
import type { StreamEvent, UpstreamError, Usage } from "../providers/types";
import { costMicrodollars } from "../metering/pricing";
import type { CallContext, InferenceDeps } from "./context";
import type { PipelineEvent } from "./types";
import { send, transportError, type AttemptPlan } from "./attempt";
import { runAttempts } from "./attempt-loop";
import { buildRecord, ZERO_USAGE } from "./record";
import type { Prepared } from "./prepare";
import { routingMetadata, upstreamFailure, type AttemptLog } from "./outcome";

type Reader = ReadableStreamDefaultReader<StreamEvent>;
type ReadResult = { kind: "event"; event: StreamEvent } | { kind: "end" } | { kind: "timeout" } | { kind: "broken"; err: unknown };

/** Reads one event, or gives up after ms (then the upstream request is aborted). */
async function readWithin(reader: Reader, ms: number, abort: AbortController): Promise<ReadResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ReadResult>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), ms);
  });
  try {
    const r = await Promise.race([
      reader.read().then(
        (x): ReadResult => (x.done ? { kind: "end" } : { kind: "event", event: x.value }),
        (err): ReadResult => ({ kind: "broken", err }),
      ),
      timeout,
    ]);
    if (r.kind === "timeout") abort.abort(new DOMException("timeout", "TimeoutError"));
    return r;
  } finally {
    clearTimeout(timer);
  }
}

interface Committed {
  plan: AttemptPlan;
  reader: Reader;
  abort: AbortController;
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
  const reader = sent.response.body!.pipeThrough(plan.adapter.streamTransform(plan.target)).getReader();
  let usage: Usage | null = null;
  const fail = (error: UpstreamError): Opened => {
    abort.abort();
    reader.cancel().catch(() => {});
    return { ok: false, error, cancelled: ctx.signal.aborted, latencyMs: performance.now() - t0 };
  };
  for (;;) {
    const left = p.firstByteTimeoutMs - (performance.now() - t0);
    const r = await readWithin(reader, Math.max(1, left), abort);
    if (r.kind === "timeout") return fail({ code: "provider_timeout", status: 0, retryable: true, message: `Provider '${p.id}' sent no first token in time.` });
    if (r.kind === "broken") return fail(transportError(r.err, p.id));
    if (r.kind === "end") return fail({ code: "provider_error", status: 502, retryable: true, message: `Provider '${p.id}' ended the stream without content.` });
    const ev = r.event;
    if (ev.type === "usage") usage = ev.usage;
    else if (ev.type === "error") return fail(ev.error);
    else return { ok: true, committed: { plan, reader, abort, first: ev, usage, attempt, startedAt, t0, ttftMs: performance.now() - t0 } };
  }
}

export function runStream(
  deps: InferenceDeps,
  ctx: CallContext,
  prepared: Prepared,
  onSettled: (costMicro: number, source: "platform" | "byok") => void,
): Promise<ReadableStream<PipelineEvent>> {
  return runAttempts(deps, ctx, prepared, true, async (plan, attempt, log, startedAt) => {
    const opened = await open(deps, ctx, plan, attempt, startedAt);
    if (!opened.ok) return opened;
    return { ok: true, value: committedStream(deps, ctx, prepared, opened.committed, log, onSettled) };
  });
}

function committedStream(
  deps: InferenceDeps,
  ctx: CallContext,
  prepared: Prepared,
  s: Committed,
  log: AttemptLog[],
  onSettled: (costMicro: number, source: "platform" | "byok") => void,
): ReadableStream<PipelineEvent> {
  const c = s.plan.candidate;
  let finished = false;
  const finish = (statusCode: number, errorCode: string | null) => {
    finished = true;
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
  const idleMs = c.provider.idleTimeoutMs;
  // The whole stream's deadline (stream_timeout_ms), counted from the attempt's start.
  const deadline = s.t0 + c.provider.streamTimeoutMs;
  return new ReadableStream<PipelineEvent>(
    {
      start(controller) {
        controller.enqueue(s.first);
      },
      async pull(controller) {
        for (;;) {
          const left = deadline - performance.now();
          const totalBound = left <= idleMs;
          const r = await readWithin(s.reader, Math.max(1, Math.min(idleMs, left)), s.abort);
          if (r.kind === "event") {
            const ev = r.event;
            if (ev.type === "delta") return controller.enqueue(ev);
            if (ev.type === "usage") {
              s.usage = ev.usage;
              continue;
            }
            return fail(controller, ev.error);
          }
          if (r.kind === "end") {
            const { usage, routing } = finish(200, null);
            controller.enqueue({ type: "done", usage, routing });
            return controller.close();
          }
          const error: UpstreamError =
            r.kind === "timeout"
              ? {
                  code: "provider_timeout",
                  status: 0,
                  retryable: false,
                  message:
                    totalBound
                      ? `Provider '${c.provider.id}' stream exceeded its total time limit.`
                      : `Provider '${c.provider.id}' went silent mid-stream.`,
                }
              : transportError(r.err, c.provider.id);
          return fail(controller, error);
        }
      },
      cancel() {
        s.abort.abort();
        s.reader.cancel().catch(() => {});
        if (!finished) finish(499, "cancelled");
      },
    },
    { highWaterMark: 0 },
  );

  function fail(controller: ReadableStreamDefaultController<PipelineEvent>, error: UpstreamError) {
    s.abort.abort();
    s.reader.cancel().catch(() => {});
    const api = upstreamFailure({ error, provider: c.provider.id }, false);
    const { routing } = finish(api.status, error.code);
    controller.enqueue({ type: "failed", error: api.body().error, routing });
    controller.close();
  }
}
