// An upstream SSE body read as internal StreamEvents, one network read at a time: bytes are decoded
// (TextDecoder keeps a UTF-8 character split across reads; eventsource-parser handles CRLF, comments
// and multi-line data), each SSE event goes through the adapter's transformer, and the results queue up.
// Each network read has a deadline (first-byte, idle or total limit), watched by one interval per
// stream rather than a timer per read (creating and clearing a timer per chunk was a measurable share
// of a stream's CPU); when a deadline passes, the upstream request is aborted.
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import type { ProviderAdapter, StreamEvent, UpstreamTarget } from "../providers/types";
import { SyncTransform } from "./sync-transform";
import type { Abortable } from "../platform/abort-sweeper";

/** Bound on one buffered event, so a server that never ends a line cannot exhaust memory. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;
/** TextDecoder options for every read but the last (one object, not one per chunk). */
const STREAMING = { stream: true };

/** An event itself (no wrapper object per event), or why there is none. */
export type NextEvent = StreamEvent | { type: "end" } | { type: "timeout" } | { type: "broken"; err: unknown };
const END = { type: "end" } as const;
const TIMEOUT = { type: "timeout" } as const;
/** What one reader.read() gives. */
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;

export class UpstreamEvents {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  private readonly translate: SyncTransform<EventSourceMessage, StreamEvent>;
  private readonly queue: StreamEvent[] = [];
  private head = 0;
  private ended = false;
  /** Why no more events will come (set once; take returns it after the queued events). */
  private failure: NextEvent | null = null;
  private watchdog: ReturnType<typeof setInterval> | undefined;
  /** performance.now() by which the pending read must finish; Infinity while not reading. */
  private deadline = Infinity;
  private timedOut = false;

  constructor(
    body: ReadableStream<Uint8Array>,
    adapter: ProviderAdapter,
    target: UpstreamTarget,
    private readonly abort: Abortable,
  ) {
    this.reader = body.getReader();
    this.translate = new SyncTransform(adapter.streamTransformer(target));
    this.parser = createParser({
      maxBufferSize: MAX_EVENT_CHARS,
      onEvent: (e) => this.enqueue(this.translate.push(e)),
      onError: (err) => {
        if (err.type === "max-buffer-size-exceeded") this.failure ??= { type: "broken", err };
      },
    });
  }

  /** The next event, or why there is none; a read waits at most `withinMs`. */
  async next(withinMs: number): Promise<NextEvent> {
    for (;;) {
      const ready = this.take();
      if (ready) return ready;
      try {
        this.accept(await this.read(withinMs));
      } catch (err) {
        this.readFailed(err);
      }
    }
  }

  // The hot loop (committed-stream.ts) uses the three steps below itself: `take`, and when it gives
  // null, `accept(await read(…))` (or `readFailed`). It then awaits the reader's own promise, not an
  // async wrapper around it: one promise and one resumption less per network read.

  /** What is ready without reading: a queued event, the stream's end or failure; null when a read is needed. */
  take(): NextEvent | null {
    if (this.head < this.queue.length) {
      const event = this.queue[this.head++]!;
      if (this.head === this.queue.length) this.queue.length = this.head = 0;
      return event;
    }
    if (this.failure) return this.failure;
    return this.ended ? END : null;
  }

  /** One network read, watched by the deadline `withinMs` from now; hand its result to accept or readFailed. */
  read(withinMs: number): Promise<ReadResult> {
    this.arm(withinMs);
    return this.reader.read();
  }

  /** Decodes and translates what a read brought; the events queue up for take. */
  accept(r: ReadResult): void {
    this.deadline = Infinity;
    // A translator that throws on an unexpected upstream shape makes the stream broken (a provider
    // error), never an exception escaping into the response.
    try {
      if (r.done) {
        this.ended = true;
        this.stopWatchdog();
        this.parser.feed(this.decoder.decode());
        this.enqueue(this.translate.end());
      } else {
        this.parser.feed(this.decoder.decode(r.value, STREAMING));
      }
    } catch (err) {
      this.cancel();
      this.failure = { type: "broken", err };
    }
  }

  /** The read failed: aborted by the deadline (timeout) or by the network (broken). */
  readFailed(err: unknown): void {
    this.deadline = Infinity;
    this.failure = this.timedOut ? TIMEOUT : { type: "broken", err };
  }

  cancel(): void {
    this.stopWatchdog();
    this.abort.abort();
    this.reader.cancel().catch(() => {});
  }

  private enqueue(events: StreamEvent[]): void {
    for (const e of events) this.queue.push(e);
  }

  private arm(ms: number): void {
    this.deadline = performance.now() + ms;
    if (this.watchdog !== undefined) return;
    // Checked at a tenth of the limit (25 ms to 1 s): a 60 s idle limit costs one wake-up a second.
    const every = Math.min(1_000, Math.max(25, ms / 10));
    this.watchdog = setInterval(() => {
      if (performance.now() < this.deadline) return;
      this.timedOut = true;
      this.stopWatchdog();
      this.abort.abort(new DOMException("timeout", "TimeoutError"));
    }, every);
    this.watchdog.unref?.();
  }

  private stopWatchdog(): void {
    clearInterval(this.watchdog);
    this.watchdog = undefined;
  }
}
