// An upstream SSE body read as internal StreamEvents, one network delivery at a time: bytes are decoded
// (TextDecoder keeps a UTF-8 character split across reads; eventsource-parser handles CRLF, comments
// and multi-line data), each SSE event goes through the adapter's transformer, and the results queue up.
// Each network read has a deadline (first-byte, idle or total limit), watched by one interval per
// stream rather than a timer per read (creating and clearing a timer per chunk was a measurable share
// of a stream's CPU); when a deadline passes, the upstream request is aborted.
// Two ways in: a body of the socket client is tapped (body-tap.ts: each delivery is pushed here inside
// the socket's data handler, and `listen` / `waitMs` let the committed stream handle it there and then,
// with no read promise per chunk); any other body is read with a reader (`read` / `accept`).
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import type { ProviderAdapter, StreamEvent, UpstreamTarget } from "../providers/types";
import { SyncTransform } from "./sync-transform";
import { tapBody } from "../platform/http1/body-tap";

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
  /** Null when the body is tapped (pushed): see `pushed`. */
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | null;
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
  private cancelled = false;
  /** Pushed body: the committed stream's handler, run after each arrival (bytes, end or failure). */
  private listener: (() => void) | null = null;
  /** Pushed body: `next` waiting for an arrival. */
  private waiter: (() => void) | null = null;

  constructor(
    response: Response,
    adapter: ProviderAdapter,
    target: UpstreamTarget,
    private readonly abort: AbortController,
  ) {
    this.translate = new SyncTransform(adapter.streamTransformer(target));
    this.parser = createParser({
      maxBufferSize: MAX_EVENT_CHARS,
      onEvent: (e) => this.enqueue(this.translate.push(e)),
      onError: (err) => {
        if (err.type === "max-buffer-size-exceeded") this.failure ??= { type: "broken", err };
      },
    });
    // Last: a tap hands over what already arrived at once.
    const tapped = tapBody(response, {
      data: (piece) => this.arrived(this.acceptBytes(piece)),
      end: () => this.arrived(this.acceptEnd()),
      error: (err) => this.arrived(this.readFailed(err)),
    });
    this.reader = tapped ? null : response.body!.getReader();
  }

  /** The body is pushed (tapped): wait with `listen` and `waitMs`, not `read`. */
  get pushed(): boolean {
    return this.reader === null;
  }

  /** Pushed body: `onArrival` runs after each arrival, from the socket's data handler. */
  listen(onArrival: () => void): void {
    this.listener = onArrival;
  }

  /** Pushed body: the next arrival must come within `ms` (else the upstream request is aborted: a timeout). */
  waitMs(ms: number): void {
    this.arm(ms);
  }

  private arrived(_: void): void {
    this.wake();
    this.listener?.();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }

  /** The next event, or why there is none; a read waits at most `withinMs`. */
  async next(withinMs: number): Promise<NextEvent> {
    for (;;) {
      const ready = this.take();
      if (ready) return ready;
      if (this.reader === null) {
        this.arm(withinMs);
        await new Promise<void>((resolve) => (this.waiter = resolve));
        continue;
      }
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
    return this.reader!.read();
  }

  /** Decodes and translates what a read brought; the events queue up for take. */
  accept(r: ReadResult): void {
    if (r.done) this.acceptEnd();
    else this.acceptBytes(r.value);
  }

  // A translator that throws on an unexpected upstream shape makes the stream broken (a provider
  // error), never an exception escaping into the response.
  private acceptBytes(bytes: Uint8Array): void {
    if (this.cancelled) return;
    this.deadline = Infinity;
    try {
      this.parser.feed(this.decoder.decode(bytes, STREAMING));
    } catch (err) {
      this.translateFailed(err);
    }
  }

  private acceptEnd(): void {
    if (this.cancelled) return;
    this.deadline = Infinity;
    this.ended = true;
    this.stopWatchdog();
    try {
      this.parser.feed(this.decoder.decode());
      this.enqueue(this.translate.end());
    } catch (err) {
      this.translateFailed(err);
    }
  }

  private translateFailed(err: unknown): void {
    this.cancel();
    this.failure = { type: "broken", err };
  }

  /** The read failed: aborted by the deadline (timeout) or by the network (broken). */
  readFailed(err: unknown): void {
    this.deadline = Infinity;
    this.failure ??= this.timedOut ? TIMEOUT : { type: "broken", err };
  }

  cancel(): void {
    this.stopWatchdog();
    if (this.reader === null) {
      if (this.cancelled) return;
      // Pushed: bytes after this are ignored; a `next` still waiting learns of it here (the listener,
      // the committed stream, is the one cancelling, or is told by its own caller).
      this.cancelled = true;
      this.failure ??= { type: "broken", err: new DOMException("cancelled", "AbortError") };
      this.abort.abort();
      this.wake();
      return;
    }
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
