// The client's side of a streaming call once its first content has arrived: no fallback any more.
// Each network read of the upstream is decoded and translated as it arrives (upstream-events.ts), and
// the drain here encodes and writes what it brought at once, in the same callback (never buffering to
// the end, no promise per read), then tells the attempt's session (stream-session.ts) that it waits:
// the session owns the idle and total limits, the keep-alives and the client's departure. When the
// client goes away the upstream is read on here, unwritten, for its usage until the session's drain
// bound; a stream settled without its usage is charged an estimate (usage-estimate.ts). The attempt is
// recorded once, when the session settles. The plain content chunks a read starts with skip decoding,
// translation and encoding (upstream-events.ts passThrough): their choices' bytes are framed by the
// client wire and written as they came; the rest of the read takes the full path.
import type { DeltaEvent, PlainChoiceFramer, RawEvent, UpstreamError, Usage } from "../providers/types";
import { costMicrodollars } from "../metering/pricing";
import type { CallContext, InferenceDeps, ServedBy } from "./context";
import type { CallTiming, PipelineEvent } from "./types";
import { transportError, type AttemptPlan } from "./attempt";
import { buildRecord } from "./record";
import { reportFailure } from "./attempt-loop";
import type { Prepared } from "./prepare";
import { routingMetadata, upstreamFailure, type AttemptLog } from "./outcome";
import type { NextEvent, UpstreamEvents } from "./upstream-events";
import { SyncTransform } from "./sync-transform";
import { copyRange } from "../platform/bytes";
import { roundMs } from "../http/reply-headers";
import { estimatedUsage, OutputCount } from "./usage-estimate";
import { rememberServed } from "./responses/follow-up";
import type { SessionClient, StreamSession } from "./stream-session";

export type Delta = DeltaEvent;

/** An attempt whose first content arrived (run-stream.ts). */
export interface Committed {
  plan: AttemptPlan;
  events: UpstreamEvents;
  /** The attempt's lifecycle: committed, until this stream settles it. */
  session: StreamSession;
  /** What arrived before and with the first content: role-only deltas (or native events), then the first real one. */
  first: (Delta | RawEvent)[];
  usage: Usage | null;
  attempt: number;
  startedAt: number;
  ttftMs: number;
  /** The call's clock readings: the first write to the client measures the gateway's own time (gateway_overhead_ms). */
  timing: CallTiming;
}

export interface CallSite {
  deps: InferenceDeps;
  ctx: CallContext;
  prepared: Prepared;
  log: AttemptLog[];
  onSettled: (costMicro: number, served: ServedBy) => void;
}

/** Bun's controller for `type: "direct"` streams (not in the DOM typings). Strings are written as UTF-8. */
interface DirectController {
  write(chunk: string | Uint8Array): number | Promise<number>;
  flush(): number | Promise<number> | undefined;
  close(): void;
}

const PING = ": keep-alive\n\n";

/** How long the upstream is read for its usage after the client left (InferenceDeps.clientGoneDrainMs; run-stream.ts). */
export const CLIENT_GONE_DRAIN_MS = 5_000;

// The encoders emit SSE text: the sink encodes it straight into the response buffer, so no
// Uint8Array is made per chunk in JavaScript (but one per read by the pass-through, writePlain).
const joined = (chunks: string[]): string => (chunks.length === 1 ? chunks[0]! : chunks.join(""));

class CommittedStream implements SessionClient {
  private readonly enc: SyncTransform<PipelineEvent, string>;
  private readonly session: StreamSession;
  private sink: DirectController | null = null;
  /** Something was written since the drain last waited (the session times keep-alives from it). */
  private wrote = false;
  /** Resolves the body's pull once the attempt is settled (or the client left). */
  private done: (() => void) | null = null;
  /** What the upstream sent, for the estimate when its usage never comes. */
  private readonly out = new OutputCount();
  private readonly onReady = () => this.drain();
  /** A native stream's event that carries the final usage, parsed (its response's id is remembered: responses/follow-up.ts). */
  private settling: Record<string, unknown> | null = null;

  constructor(
    private readonly site: CallSite,
    private readonly s: Committed,
    private readonly encoder: Transformer<PipelineEvent, string> & Partial<PlainChoiceFramer>,
    keepAliveMs: number,
  ) {
    this.enc = new SyncTransform(encoder);
    this.session = s.session;
    for (const ev of s.first) this.count(ev);
    this.session.serve(this, keepAliveMs);
    site.deps.streams?.opened();
  }

  /** The body: a "direct" stream (Bun) writes straight to the response sink, no queue, no promise per chunk. */
  body(): ReadableStream<Uint8Array> {
    const source = {
      type: "direct",
      pull: (controller: DirectController) => this.run(controller),
      cancel: () => this.session.clientLeft(),
    };
    return new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
  }

  private async run(sink: DirectController): Promise<void> {
    // Left or settled before the first write: the session has (or will have) told this stream.
    if (this.session.clientGone || this.session.state === "settled") return;
    this.sink = sink;
    const settled = new Promise<void>((resolve) => (this.done = resolve));
    try {
      // What arrived before the body was pulled, written at once (push's array is reused per call: copied).
      const opening: string[] = [];
      for (const ev of this.s.first) for (const text of this.enc.push(ev)) opening.push(text);
      this.write(opening);
      const t = this.s.timing;
      t.overheadMs = performance.now() - t.startedAt - t.upstreamMs;
      this.session.writing();
      this.s.events.listen(this.onReady);
      if (this.encoder.plainFrame)
        this.s.events.passThrough((bytes, ranges, count, overhead) => this.writePlain(bytes, ranges, count, overhead));
      this.drain();
      await settled;
    } catch {
      this.session.clientLeft(); // the sink refused a write: the client is gone
    }
  }

  /** Writes whatever the upstream's last read brought; run by each arrival (UpstreamEvents.listen). */
  private drain(): void {
    const events = this.s.events;
    const session = this.session;
    try {
      while (session.state !== "settled") {
        const r = events.take();
        if (r === null) {
          session.waiting(this.wrote);
          this.wrote = false;
          return;
        }
        if (r.type === "delta" || r.type === "raw") {
          if (r.type === "raw" && r.held) this.settling = r.held.data;
          this.count(r);
          if (!session.clientGone) this.write(this.enc.push(r));
        } else if (r.type === "usage") {
          this.s.usage = r.usage;
          if (session.clientGone) return this.drained();
        } else return this.settle(r);
      }
    } catch {
      session.clientLeft(); // the sink refused a write: the client is gone
    }
  }

  private count(ev: Delta | RawEvent): void {
    if (ev.type === "delta") this.out.add(ev.delta);
    else if (ev.content) this.out.addRaw(ev.chars);
  }

  /** SessionClient: the client went away; the stream is read on, unwritten, for its usage until the drain bound. */
  left(): void {
    this.sink = null;
    this.done?.();
    this.s.events.listen(this.onReady);
    this.drain();
  }

  /** SessionClient: a keep-alive comment after a silence. */
  ping(): void {
    const sink = this.sink;
    if (sink === null) return;
    try {
      sink.write(PING);
      sink.flush();
    } catch {
      this.session.clientLeft();
    }
  }

  /** Read on after the client left until the usage, the end, a failure or the drain bound: settled as cancelled. */
  private drained(): void {
    this.s.events.cancel();
    this.finish(499, "cancelled");
  }

  /** The stream's last word: its end, an upstream error, a broken connection or a passed limit. */
  private settle(r: Exclude<NextEvent, Delta | RawEvent | { type: "usage" }>): void {
    const provider = this.s.plan.candidate.provider;
    if (this.session.clientGone) return this.drained();
    if (r.type === "error") return this.fail(r.error);
    if (r.type === "end") {
      const settled = this.finish(200, null);
      return settled ? this.end({ type: "done", ...settled }) : undefined;
    }
    if (r.type === "broken") return this.fail(transportError(r.err, provider.id));
    const total = r.which === "total";
    const message = total
      ? `Provider '${provider.id}' stream exceeded its total time limit.`
      : `Provider '${provider.id}' went silent mid-stream.`;
    return this.fail({ code: "provider_timeout", status: 0, retryable: false, message, wholeAttempt: total });
  }

  private write(out: string[]): void {
    if (out.length === 0 || !this.sink) return;
    // No flush per write: Bun sends what was written when this task yields, so the chunks of one
    // network read leave together (a flush per chunk cost a third of a stream's CPU).
    this.sink.write(joined(out));
    this.wrote = true;
  }

  /**
   * The pass-through (upstream-events.ts): plain choices framed by the client wire, their bytes as they
   * came, copied into one array and written once (no view of `bytes`: a view of a socket read makes JSC
   * copy it into an ArrayBuffer of its own; Buffer's copy takes the range without one).
   */
  private writePlain(bytes: Uint8Array, ranges: number[], count: number, overhead: number | undefined): boolean {
    if (this.session.state === "settled") return false;
    let choices = 0;
    for (let i = 0; i < 2 * count; i += 2) choices += ranges[i + 1]! - ranges[i]!;
    const sink = this.sink;
    if (sink === null) {
      // The client left (the sink is set before the pass-through starts): counted, not written.
      this.out.addPlain(count, choices, overhead);
      this.session.waiting(false);
      return true;
    }
    const frame = this.encoder.plainFrame!();
    if (frame === null) return false;
    const { head, tail } = frame;
    this.out.addPlain(count, choices, overhead);
    const out = new Uint8Array(choices + count * (head.length + tail.length));
    let at = 0;
    for (let i = 0; i < 2 * count; i += 2) {
      out.set(head, at);
      at += head.length;
      at += copyRange(bytes, ranges[i]!, ranges[i + 1]!, out, at);
      out.set(tail, at);
      at += tail.length;
    }
    try {
      sink.write(out);
    } catch {
      this.session.clientLeft(); // the sink refused a write: the client is gone
      return true;
    }
    // What the drain would do after this read (nothing is queued): wait for the next one.
    this.session.waiting(true);
    return true;
  }

  private end(last: PipelineEvent): void {
    this.write([...this.enc.push(last), ...this.enc.end()]);
    this.sink?.close();
  }

  private fail(error: UpstreamError): void {
    this.s.events.cancel();
    const api = upstreamFailure({ error, provider: this.s.plan.candidate.provider.id }, false);
    const settled = this.finish(api.status, error.code, error);
    // A native stream's own error event is relayed as the provider wrote it.
    if (settled) this.end({ type: "failed", error: api.body().error, routing: settled.routing, native: error.native?.body });
  }

  /** Records, measures and settles the attempt — exactly once, whichever of end, failure or cancellation comes first. */
  private finish(statusCode: number, errorCode: string | null, error?: UpstreamError) {
    if (!this.session.settle()) return null;
    this.site.deps.streams?.closed();
    // The pull ends once the caller has written the last event (this runs before its continuation).
    this.done?.();
    const { deps, ctx, prepared, log, onSettled } = this.site;
    const s = this.s;
    const c = s.plan.candidate;
    const latencyMs = this.session.now() - this.session.t0;
    // No usage from the upstream (it left off before its usage chunk, or ended without one after content): an estimate.
    const usageEstimated = s.usage === null || s.usage.inputTokens + s.usage.outputTokens === 0;
    const usage = usageEstimated ? estimatedUsage(prepared.request, this.out) : s.usage!;
    const cost = costMicrodollars(usage, c.route);
    const ok = errorCode === null;
    const genMs = latencyMs - s.ttftMs;
    const tps = usage.outputTokens > 0 && genMs > 0 ? (usage.outputTokens * 1000) / genMs : undefined;
    if (ok) {
      // The TTFT was recorded at the first token (run-stream.ts).
      deps.health.recordSuccess(c.routeKey, { tps, latencyMs }, Date.now());
      const response = this.settling?.response as { id?: unknown } | undefined;
      if (response) rememberServed(deps, ctx, prepared, s.plan, response.id);
    } else if (error) reportFailure(deps, ctx.workspaceId, s.plan, error);
    else deps.health.releaseProbe(c.routeKey);
    const outcome = {
      attempt: s.attempt,
      final: true,
      statusCode,
      success: ok,
      latencyMs,
      ttftMs: s.ttftMs,
      usage,
      costMicrodollars: cost,
      errorCode,
      usageEstimated,
    };
    deps.records.enqueue(buildRecord(ctx, prepared, s.plan, outcome, s.startedAt));
    onSettled(cost, { provider: c.provider.id, byok: s.plan.apiKeySource === "byok" });
    const routing = routingMetadata(prepared, s.plan, cost, log, { ttftMs: s.ttftMs, throughputTps: tps });
    routing.gateway_overhead_ms = roundMs(s.timing.overheadMs);
    return { usage, routing };
  }
}

export function committedStream(
  site: CallSite,
  s: Committed,
  encoder: Transformer<PipelineEvent, string>,
  keepAliveMs: number,
): ReadableStream<Uint8Array> {
  return new CommittedStream(site, s, encoder, keepAliveMs).body();
}
