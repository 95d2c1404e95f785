// An upstream SSE body read as internal StreamEvents, pushed one network read at a time (a BodyTap: the
// socket client calls in from its data callback, with no promise per read): bytes are decoded
// (TextDecoder keeps a UTF-8 character split across reads; eventsource-parser handles CRLF, comments
// and multi-line data), each SSE event goes through the adapter's transformer, the results queue up and
// the reader is woken. The deadlines are the stream session's (stream-session.ts): when one passes it
// interrupts the reader, which then finds a timeout saying which.
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import type { PlainChoiceReader, ProviderAdapter, StreamEvent, UpstreamTarget } from "../providers/types";
import { SyncTransform } from "./sync-transform";
import type { Abortable } from "../platform/abort-sweeper";
import type { BodyTap, UpstreamAnswer } from "../platform/upstream-answer";
import type { Expiry, SessionUpstream } from "./stream-session";

/** Bound on one buffered event, so a server that never ends a line cannot exhaust memory. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;
/** TextDecoder options for every read but the last (one object, not one per chunk). */
const STREAMING = { stream: true };
const LF = 10;

/**
 * Writes the plain choices a network read starts with to the client (the committed stream): `ranges` holds
 * `count` pairs of offsets into `bytes`, each a choice's JSON (providers/types.ts PlainChoiceReader).
 * False when it cannot frame them yet (nothing written: the full path takes the read). Having written
 * them, it tells the session it waits for the next read, as its drain would: the reader is not woken
 * for a read that queued nothing (a wake-up per chunk was ~700 instructions of each).
 */
export type PlainChoiceWriter = (bytes: Uint8Array, ranges: number[], count: number, overhead: number | undefined) => boolean;

/** An event itself (no wrapper object per event), or why there is none. */
export type NextEvent = StreamEvent | { type: "end" } | { type: "timeout"; which: Expiry } | { type: "broken"; err: unknown };
const END = { type: "end" } as const;

export class UpstreamEvents implements BodyTap, SessionUpstream {
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  private readonly translate: SyncTransform<EventSourceMessage, StreamEvent>;
  private readonly queue: StreamEvent[] = [];
  private head = 0;
  private ended = false;
  /** Why no more events will come (set once; take returns it after the queued events). */
  private failure: NextEvent | null = null;
  /** Cancelled or failed in translation: whatever the body still brings is ignored. */
  private stopped = false;
  /** Called after each piece (but one the pass-through wrote), end or failure: the committed stream's drain (listen). */
  private wake: (() => void) | null = null;
  /** The first-token wait's wake-up (next): called once, on cancel too. */
  private waiter: (() => void) | null = null;
  /** Stops the body's delivery; set once the tap is on (a body delivered whole arrives during the tap call). */
  private stopBody: () => void = () => {};
  /** The adapter's reader of plain choices in raw bytes, when it has one. */
  private readonly plain: PlainChoiceReader | null;
  /** Where plain choices go instead of the parser (passThrough); null until the client's side asks. */
  private direct: PlainChoiceWriter | null = null;
  /** Everything fed to the parser ended with a blank line: it holds no partial line or event. */
  private atBoundary = false;
  /** Offsets of the plain choices of one read (reused). */
  private readonly ranges: number[] = [];

  constructor(
    answer: UpstreamAnswer,
    adapter: ProviderAdapter,
    target: UpstreamTarget,
    private readonly abort: Abortable,
  ) {
    const transformer = adapter.streamTransformer(target);
    this.translate = new SyncTransform(transformer);
    // An adapter's transformer says whether it can find plain choices in raw bytes (providers/types.ts).
    this.plain = transformer.plainChoice !== undefined ? (transformer as PlainChoiceReader) : null;
    this.parser = createParser({
      maxBufferSize: MAX_EVENT_CHARS,
      onEvent: (e) => this.enqueue(this.translate.push(e)),
      onError: (err) => {
        if (err.type === "max-buffer-size-exceeded") this.failure ??= { type: "broken", err };
      },
    });
    this.stopBody = answer.tap(this);
  }

  /** The next event, or why there is none (the first-content wait: its limit is the session's). */
  async next(): Promise<NextEvent> {
    for (;;) {
      const ready = this.take();
      if (ready) return ready;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  /** From now on `onReady` is called whenever something may be ready to take (the committed stream's drain). */
  listen(onReady: () => void): void {
    this.wake = onReady;
  }

  /**
   * From now on the plain content chunks (PlainChoiceReader) a network read starts with are handed to
   * `write` as they came, when nothing is queued and the parser sits between events: the same bytes the
   * full path would produce, without decoding, parsing, translating or encoding them; a read made only
   * of them wakes no one (the writer sets the next wait itself), the rest of a read takes the full path.
   * False when the adapter has no such reader.
   */
  passThrough(write: PlainChoiceWriter): boolean {
    if (this.plain === null) return false;
    this.direct = write;
    return true;
  }

  /** What is ready: a queued event, the stream's end or failure; null while more must arrive. */
  take(): NextEvent | null {
    if (this.head < this.queue.length) {
      const event = this.queue[this.head++]!;
      if (this.head === this.queue.length) this.queue.length = this.head = 0;
      return event;
    }
    if (this.failure) return this.failure;
    return this.ended ? END : null;
  }

  // BodyTap: the body's pieces, decoded and translated as they come. A translator that throws on an
  // unexpected upstream shape makes the stream broken (a provider error), never an exception escaping
  // into the client's socket callback.

  piece(bytes: Uint8Array, start: number, end: number): void {
    if (this.stopped) return;
    if (this.direct !== null && this.atBoundary && this.head === this.queue.length && this.failure === null) {
      start = this.passed(bytes, start, end);
      // All written, and the writer waits for the next read already (PlainChoiceWriter): nothing to wake.
      // (Stopped: the writer found the client gone and cancelled.)
      if (start === end || this.stopped) return;
    }
    this.atBoundary = end - start >= 2 && bytes[end - 1] === LF && bytes[end - 2] === LF;
    try {
      // A copy of the range when the delivery holds more (a view would make JSC copy the whole delivery).
      this.parser.feed(this.decoder.decode(start === 0 && end === bytes.length ? bytes : bytes.slice(start, end), STREAMING));
    } catch (err) {
      this.broke(err);
    }
    this.notify();
  }

  /**
   * The plain choices at the start of the read handed to the pass-through: whole events (`data: …` lines,
   * each followed by a blank line) up to the first that is not one, or an event the read does not finish.
   * Returns where the rest of the read starts (`end` when all of it was written; `start` when nothing
   * was, or the writer could not frame them yet). The rest starts between events, where the parser is.
   * A stream's last read usually holds its last content chunk and then the finish, usage and `[DONE]`
   * events: the content passes, and only those go to the full path.
   */
  private passed(bytes: Uint8Array, start: number, end: number): number {
    const plain = this.plain!;
    const ranges = this.ranges;
    let count = 0;
    let at = start;
    while (at < end) {
      let lf = bytes.indexOf(LF, at);
      if (lf < 0 || lf + 1 >= end) break;
      // A native event's data line follows its event line (PlainChoiceReader.twoLine).
      if (bytes[lf + 1] !== LF) {
        if (plain.twoLine !== true) break;
        lf = bytes.indexOf(LF, lf + 1);
        if (lf < 0 || lf + 1 >= end || bytes[lf + 1] !== LF) break;
      }
      const from = plain.plainChoice(bytes, at, lf);
      if (from < 0) break;
      ranges[2 * count] = from;
      ranges[2 * count + 1] = plain.choiceEnd;
      count++;
      at = lf + 2;
    }
    return count > 0 && this.direct!(bytes, ranges, count, plain.overhead) ? at : start;
  }

  end(): void {
    if (this.stopped) return;
    this.ended = true;
    try {
      this.parser.feed(this.decoder.decode());
      this.enqueue(this.translate.end());
    } catch (err) {
      this.broke(err);
    }
    this.notify();
  }

  /** The body failed (the network, or the request stopped). */
  error(err: unknown): void {
    if (this.stopped) return;
    this.failure ??= { type: "broken", err };
    this.notify();
  }

  /**
   * The session stops the stream: a limit passed (the reader, woken, takes a timeout saying which, after
   * what is queued) or the client left before commit (cancel).
   */
  interrupt(why: Expiry | "cancelled"): void {
    if (why === "cancelled") return this.cancel();
    this.failure ??= { type: "timeout", which: why };
    this.stop(new DOMException("timeout", "TimeoutError"));
    this.notify();
  }

  /**
   * The reader is done with the stream (the client left, or the stream failed): the upstream request
   * stops, and a first-token wait still pending (next) is woken to find the stream broken. The drain
   * (listen) is not called again: it is the one cancelling.
   */
  cancel(): void {
    this.wake = null;
    this.failure ??= { type: "broken", err: new DOMException("The stream was cancelled.", "AbortError") };
    this.stop();
    this.notify();
  }

  private notify(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
    this.wake?.();
  }

  private broke(err: unknown): void {
    this.failure ??= { type: "broken", err };
    this.stop();
  }

  private stop(reason?: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort(reason);
    this.stopBody();
  }

  private enqueue(events: StreamEvent[]): void {
    for (const e of events) this.queue.push(e);
  }
}
