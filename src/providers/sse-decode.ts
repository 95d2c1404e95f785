// Bytes of an upstream `text/event-stream` body → parsed SSE events. Decoding is delegated to
// TextDecoderStream (which holds a UTF-8 character split across chunks) and to the maintained
// eventsource-parser (CRLF/CR/LF line ends, comments, multi-line `data:`), so the output never
// depends on where the network cut the bytes.
import { EventSourceParserStream, type EventSourceMessage } from "eventsource-parser/stream";

export type SseEvent = EventSourceMessage;

/** Bound on one buffered event, so a server that never ends a line cannot exhaust memory. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** A transform pair from raw bytes to SSE events (cancel and abort propagate through both stages). */
export function sseDecoder(): TransformStream<Uint8Array, SseEvent> {
  // A writable of BufferSource accepts Uint8Array; TypeScript's stream types are invariant, hence the cast.
  const text = new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>;
  return chainTransforms(text, new EventSourceParserStream({ maxBufferSize: MAX_EVENT_CHARS }));
}

/**
 * Two transforms seen as one: writes go into the first, reads come out of the second. pipeThrough
 * carries cancellation back to the first stage, so a client that hangs up cancels the upstream body.
 */
export function chainTransforms<A, B, C>(first: TransformStream<A, B>, second: TransformStream<B, C>): TransformStream<A, C> {
  return { writable: first.writable, readable: first.readable.pipeThrough(second) };
}
