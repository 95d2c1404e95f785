// An upstream SSE body read as internal StreamEvents, one network read at a time: bytes are decoded
// (TextDecoder keeps a UTF-8 character split across reads; eventsource-parser handles CRLF, comments
// and multi-line data), each SSE event goes through the adapter's transformer, and the results queue up.
// A timer bounds each network read (first-byte, idle or total limit); when it fires the upstream
// request is aborted.
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import type { ProviderAdapter, StreamEvent, UpstreamTarget } from "../providers/types";
import { SyncTransform } from "./sync-transform";

/** Bound on one buffered event, so a server that never ends a line cannot exhaust memory. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

export type NextEvent = { kind: "event"; event: StreamEvent } | { kind: "end" } | { kind: "timeout" } | { kind: "broken"; err: unknown };

export class UpstreamEvents {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  private readonly translate: SyncTransform<EventSourceMessage, StreamEvent>;
  private readonly queue: StreamEvent[] = [];
  private head = 0;
  private ended = false;
  private parseError: unknown = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timedOut = false;

  constructor(
    body: ReadableStream<Uint8Array>,
    adapter: ProviderAdapter,
    target: UpstreamTarget,
    private readonly abort: AbortController,
  ) {
    this.reader = body.getReader();
    this.translate = new SyncTransform(adapter.streamTransformer(target));
    this.parser = createParser({
      maxBufferSize: MAX_EVENT_CHARS,
      onEvent: (e) => this.enqueue(this.translate.push(e)),
      onError: (err) => {
        if (err.type === "max-buffer-size-exceeded") this.parseError = err;
      },
    });
  }

  /** The next event, or why there is none; a read waits at most `withinMs`. */
  async next(withinMs: number): Promise<NextEvent> {
    for (;;) {
      if (this.head < this.queue.length) {
        const event = this.queue[this.head++]!;
        if (this.head === this.queue.length) this.queue.length = this.head = 0;
        return { kind: "event", event };
      }
      if (this.parseError) return { kind: "broken", err: this.parseError };
      if (this.ended) return { kind: "end" };
      this.arm(withinMs);
      let r: { done: boolean; value?: Uint8Array };
      try {
        r = await this.reader.read();
      } catch (err) {
        return this.timedOut ? { kind: "timeout" } : { kind: "broken", err };
      } finally {
        clearTimeout(this.timer);
      }
      if (r.done) {
        this.ended = true;
        this.parser.feed(this.decoder.decode());
        this.enqueue(this.translate.end());
      } else {
        this.parser.feed(this.decoder.decode(r.value!, { stream: true }));
      }
    }
  }

  cancel(): void {
    this.abort.abort();
    this.reader.cancel().catch(() => {});
  }

  private enqueue(events: StreamEvent[]): void {
    for (const e of events) this.queue.push(e);
  }

  /** One timer per network read (not per event): several events usually arrive in one read. */
  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.abort.abort(new DOMException("timeout", "TimeoutError"));
    }, Math.max(1, ms));
  }
}
