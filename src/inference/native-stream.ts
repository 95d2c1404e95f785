// The client's encoder for an interface some routes speak natively (Messages, Responses). A native
// attempt's events (RawEvent) are written as the provider sent them; the one carrying the final usage
// is held, with what follows it, until the call settles, then written with `routing_metadata` added
// where that interface's translated stream has it (message_delta; the response of response.completed).
// A translated attempt (a fallback to a route of another wire) goes to the interface's own encoder,
// made only then: the Responses encoder writes response.created as it starts.
import type { NativeWire, PlainChoiceFramer, RawEvent } from "../providers/types";
import type { PipelineEvent, RoutingMetadata } from "./types";
import { anthropicErrorType } from "./messages/errors";

type Controller = TransformStreamDefaultController<string>;

const BARE = { head: new Uint8Array(0), tail: new Uint8Array(0) };

class NativeStreamEncoder implements Transformer<PipelineEvent, string> {
  private translating: Transformer<PipelineEvent, string> | null = null;
  private native = false;
  private held: RawEvent[] | null = null;
  /** Events written, for the sequence number of an error event the gateway adds (Responses). */
  private written = 0;
  private ended = false;

  constructor(
    private readonly wire: NativeWire,
    private readonly makeTranslating: () => Transformer<PipelineEvent, string>,
  ) {}

  transform(ev: PipelineEvent, c: Controller): void {
    if (ev.type === "raw") return this.raw(ev, c);
    if (!this.native) return this.translated(ev, c);
    if (ev.type === "delta" || this.ended) return;
    this.ended = true;
    if (ev.type === "done") return this.release(c, ev.routing);
    // A failure after content: what was held is written as it came, then the provider's own error event
    // (or the gateway's, in the wire's shape).
    this.release(c, undefined);
    c.enqueue(ev.native ?? this.errorEvent(ev.error.code, ev.error.message));
  }

  /**
   * The pass-through's frame (upstream-events.ts): a native content event's bytes go as they came, with
   * nothing around them, unless something is held (they would overtake it); a translated attempt's is
   * its own encoder's.
   */
  plainFrame(): { head: Uint8Array; tail: Uint8Array } | null {
    if (this.translating) return (this.translating as Partial<PlainChoiceFramer>).plainFrame?.() ?? null;
    return this.native && this.held === null && !this.ended ? BARE : null;
  }

  flush(c: Controller): void {
    if (this.translating) {
      void this.translating.flush?.(c);
      return;
    }
    if (this.native && !this.ended) {
      this.release(c, undefined);
      c.enqueue(this.errorEvent("internal_error", "The stream ended before it was complete."));
    }
  }

  private raw(ev: RawEvent, c: Controller): void {
    this.native = true;
    if (ev.held) this.held = [ev];
    else if (this.held) this.held.push(ev);
    else {
      this.written++;
      c.enqueue(ev.text);
    }
  }

  private translated(ev: PipelineEvent, c: Controller): void {
    if (!this.translating) {
      this.translating = this.makeTranslating();
      this.translating.start?.(c);
    }
    this.translating.transform?.(ev, c);
  }

  /** The held events, the first with the routing metadata added (when the call settled). */
  private release(c: Controller, routing: RoutingMetadata | undefined): void {
    const held = this.held ?? [];
    this.held = null;
    for (const ev of held) {
      this.written++;
      c.enqueue(routing && ev.held ? withRouting(ev, routing) : ev.text);
    }
  }

  private errorEvent(code: string, message: string): string {
    if (this.wire === "anthropic") {
      const data = { type: "error", error: { type: anthropicErrorType(code), message } };
      return `event: error\ndata: ${JSON.stringify(data)}\n\n`;
    }
    const data = { type: "error", code, message, param: null, sequence_number: this.written };
    return `event: error\ndata: ${JSON.stringify(data)}\n\n`;
  }
}

function withRouting(ev: RawEvent, routing: RoutingMetadata): string {
  const { event, data, at } = ev.held!;
  const response = data.response;
  const patched =
    at === "top"
      ? { ...data, routing_metadata: routing }
      : { ...data, response: { ...(response as Record<string, unknown>), routing_metadata: routing } };
  return `event: ${event}\ndata: ${JSON.stringify(patched)}\n\n`;
}

/** The encoder of an interface with native routes; `translating` makes its own encoder, for a translated attempt. */
export function nativeStreamEncoder(
  wire: NativeWire,
  translating: () => Transformer<PipelineEvent, string>,
): Transformer<PipelineEvent, string> {
  return new NativeStreamEncoder(wire, translating);
}
