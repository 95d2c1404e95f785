// The client's side of a streaming call once its first content has arrived: no fallback any more.
// Each network read of the upstream is decoded and translated as it arrives (upstream-events.ts), and
// the drain here encodes and writes what it brought at once, in the same callback (never buffering to
// the end, no promise per read); it enforces the idle and total timeouts, writes SSE keep-alive
// comments during silences, settles the attempt exactly once. When the client goes away after content
// the upstream is read on, unwritten, for its usage within a bound (clientGoneDrainMs), then cancelled;
// a stream settled without its usage is charged an estimate (usage-estimate.ts). The plain content chunks a read starts with skip decoding, translation and
// encoding (upstream-events.ts passThrough): their choices' bytes are framed by the client wire and
// written as they came; the rest of the read takes the full path.
import type { DeltaEvent, PlainChoiceFramer, RawEvent, UpstreamError, Usage } from "../providers/types";
import { costMicrodollars } from "../metering/pricing";
import type { CallContext, InferenceDeps, ServedBy } from "./context";
import type { PipelineEvent } from "./types";
import { transportError, type AttemptPlan } from "./attempt";
import { buildRecord } from "./record";
import { reportFailure } from "./attempt-loop";
import type { Prepared } from "./prepare";
import { routingMetadata, upstreamFailure, type AttemptLog } from "./outcome";
import type { NextEvent, UpstreamEvents } from "./upstream-events";
import { SyncTransform } from "./sync-transform";
import { copyRange } from "../platform/bytes";
import { estimatedUsage, OutputCount } from "./usage-estimate";
import { rememberServed } from "./responses/follow-up";

export type Delta = DeltaEvent;

/** An attempt whose first content arrived (run-stream.ts). */
export interface Committed {
  plan: AttemptPlan;
  events: UpstreamEvents;
  /** What arrived before and with the first content: role-only deltas (or native events), then the first real one. */
  first: (Delta | RawEvent)[];
  usage: Usage | null;
  attempt: number;
  startedAt: number;
  t0: number;
  ttftMs: number;
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

/** How long the upstream is read for its usage after the client left (InferenceDeps.clientGoneDrainMs). */
export const CLIENT_GONE_DRAIN_MS = 5_000;

// The encoders emit SSE text: the sink encodes it straight into the response buffer, so no
// Uint8Array is made per chunk in JavaScript (but one per read by the pass-through, writePlain).
const joined = (chunks: string[]): string => (chunks.length === 1 ? chunks[0]! : chunks.join(""));

class CommittedStream {
  private readonly enc: SyncTransform<PipelineEvent, string>;
  private sink: DirectController | null = null;
  private finished = false;
  private lastWrite = performance.now();
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private readonly deadline: number;
  /** The wait limit set when the drain last ran dry was the total limit's rest, not the idle limit. */
  private totalBound = false;
  /** Resolves the body's pull once the attempt is settled (or the client left). */
  private done: (() => void) | null = null;
  /** The client left: nothing more is written, the upstream is read on until `drainUntil` for its usage. */
  private gone = false;
  private drainUntil = Infinity;
  /** What the upstream sent, for the estimate when its usage never comes. */
  private readonly out = new OutputCount();
  private readonly onClientGone = () => this.clientLeft();
  /** A native stream's event that carries the final usage, parsed (its response's id is remembered: responses/follow-up.ts). */
  private settling: Record<string, unknown> | null = null;

  constructor(
    private readonly site: CallSite,
    private readonly s: Committed,
    private readonly encoder: Transformer<PipelineEvent, string> & Partial<PlainChoiceFramer>,
    private readonly keepAliveMs: number,
  ) {
    this.enc = new SyncTransform(encoder);
    this.deadline = s.t0 + s.plan.candidate.provider.streamTimeoutMs;
    for (const ev of s.first) this.count(ev);
    if (site.ctx.signal.aborted) queueMicrotask(this.onClientGone);
    else site.ctx.signal.addEventListener("abort", this.onClientGone, { once: true });
  }

  /** The body: a "direct" stream (Bun) writes straight to the response sink, no queue, no promise per chunk. */
  body(): ReadableStream<Uint8Array> {
    const source = {
      type: "direct",
      pull: (controller: DirectController) => this.run(controller),
      cancel: () => this.clientLeft(),
    };
    return new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
  }

  private async run(sink: DirectController): Promise<void> {
    this.sink = sink;
    if (this.site.ctx.signal.aborted || this.finished || this.gone) return this.clientLeft(); // left before the first write
    const settled = new Promise<void>((resolve) => (this.done = resolve));
    try {
      // What arrived before the body was pulled, written at once (push's array is reused per call: copied).
      const opening: string[] = [];
      for (const ev of this.s.first) for (const text of this.enc.push(ev)) opening.push(text);
      this.write(opening);
      this.keepAlive = setInterval(() => this.ping(), this.keepAliveMs);
      this.s.events.listen(() => this.drain());
      if (this.encoder.plainFrame) this.s.events.passThrough((bytes, ranges, count) => this.writePlain(bytes, ranges, count));
      this.drain();
      await settled;
    } catch {
      this.clientLeft(); // the sink refused a write: the client is gone
    } finally {
      clearInterval(this.keepAlive);
      this.site.ctx.signal.removeEventListener("abort", this.onClientGone);
    }
  }

  /** Writes whatever the upstream's last read brought; run by each arrival (UpstreamEvents.listen). */
  private drain(): void {
    const events = this.s.events;
    try {
      while (!this.finished) {
        const r = events.take();
        if (r === null) return this.expectNext(performance.now());
        if (r.type === "delta" || r.type === "raw") {
          if (r.type === "raw" && r.held) this.settling = r.held.data;
          this.count(r);
          if (!this.gone) this.write(this.enc.push(r));
        } else if (r.type === "usage") {
          this.s.usage = r.usage;
          if (this.gone) return this.drained();
        } else return this.settle(r);
      }
    } catch {
      this.clientLeft(); // the sink refused a write: the client is gone
    }
  }

  private count(ev: Delta | RawEvent): void {
    if (ev.type === "delta") this.out.add(ev.delta);
    else if (ev.content) this.out.addRaw(ev.chars);
  }

  /** The client went away: the stream is read on, unwritten, for its usage until the drain bound. */
  private clientLeft(): void {
    if (this.finished || this.gone) return;
    this.gone = true;
    this.sink = null;
    clearInterval(this.keepAlive);
    this.done?.();
    this.drainUntil = performance.now() + (this.site.deps.clientGoneDrainMs ?? CLIENT_GONE_DRAIN_MS);
    this.s.events.listen(() => this.drain());
    this.drain();
  }

  /** Read on after the client left until the usage, the end, a failure or the drain bound: settled as cancelled. */
  private drained(): void {
    this.s.events.cancel();
    this.finish(499, "cancelled");
  }

  /** Nothing more to write yet: the next read must come within the idle limit (or the rest of the total). */
  private expectNext(now: number): void {
    if (now >= this.drainUntil) return this.drained();
    const provider = this.s.plan.candidate.provider;
    const left = Math.min(this.deadline, this.drainUntil) - now;
    this.totalBound = left <= provider.idleTimeoutMs;
    this.s.events.expectWithin(Math.max(1, Math.min(provider.idleTimeoutMs, left)), now);
  }

  /** The stream's last word: its end, an upstream error, a broken connection or a timeout. */
  private settle(r: Exclude<NextEvent, Delta | { type: "usage" }>): void {
    const provider = this.s.plan.candidate.provider;
    if (this.gone) return this.drained();
    if (r.type === "error") return this.fail(r.error);
    if (r.type === "end") {
      const settled = this.finish(200, null);
      return settled ? this.end({ type: "done", ...settled }) : undefined;
    }
    if (r.type === "broken") return this.fail(transportError(r.err, provider.id));
    const message = this.totalBound
      ? `Provider '${provider.id}' stream exceeded its total time limit.`
      : `Provider '${provider.id}' went silent mid-stream.`;
    return this.fail({ code: "provider_timeout", status: 0, retryable: false, message, wholeAttempt: this.totalBound });
  }

  private write(out: string[]): void {
    if (out.length === 0 || !this.sink) return;
    // No flush per write: Bun sends what was written when this task yields, so the chunks of one
    // network read leave together (a flush per chunk cost a third of a stream's CPU).
    this.sink.write(joined(out));
    this.lastWrite = performance.now();
  }

  /**
   * The pass-through (upstream-events.ts): plain choices framed by the client wire, their bytes as they
   * came, copied into one array and written once (no view of `bytes`: a view of a socket read makes JSC
   * copy it into an ArrayBuffer of its own; Buffer's copy takes the range without one).
   */
  private writePlain(bytes: Uint8Array, ranges: number[], count: number): boolean {
    if (this.finished) return false;
    let choices = 0;
    for (let i = 0; i < 2 * count; i += 2) choices += ranges[i + 1]! - ranges[i]!;
    const sink = this.sink;
    if (sink === null) {
      // The client left (the sink is set before the pass-through starts): counted, not written.
      this.out.addPlain(count, choices);
      this.expectNext(performance.now());
      return true;
    }
    const frame = this.encoder.plainFrame!();
    if (frame === null) return false;
    const { head, tail } = frame;
    this.out.addPlain(count, choices);
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
      this.clientLeft(); // the sink refused a write: the client is gone
      return true;
    }
    // What the drain would do after this read (nothing is queued): wait for the next one.
    this.lastWrite = performance.now();
    this.expectNext(this.lastWrite);
    return true;
  }

  private ping(): void {
    if (performance.now() - this.lastWrite < this.keepAliveMs * 0.9) return;
    this.sink?.write(PING);
    this.sink?.flush();
    this.lastWrite = performance.now();
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
    if (this.finished) return null;
    this.finished = true;
    clearInterval(this.keepAlive);
    // The pull ends once the caller has written the last event (this runs before its continuation).
    this.done?.();
    const { deps, ctx, prepared, log, onSettled } = this.site;
    const s = this.s;
    const c = s.plan.candidate;
    const latencyMs = performance.now() - s.t0;
    // No usage from the upstream (it left off before its usage chunk, or ended without one after content): an estimate.
    const usageEstimated = s.usage === null || s.usage.inputTokens + s.usage.outputTokens === 0;
    const usage = usageEstimated ? estimatedUsage(prepared.request, this.out) : s.usage!;
    const cost = costMicrodollars(usage, c.route);
    const ok = errorCode === null;
    const genMs = latencyMs - s.ttftMs;
    const tps = usage.outputTokens > 0 && genMs > 0 ? (usage.outputTokens * 1000) / genMs : undefined;
    if (ok) {
      deps.health.recordSuccess(c.routeKey, { ttftMs: s.ttftMs, tps, latencyMs }, Date.now());
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
    return { usage, routing: routingMetadata(prepared, s.plan, cost, log, { ttftMs: s.ttftMs, throughputTps: tps }) };
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
