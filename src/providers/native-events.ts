// What the native wires share (anthropic/native.ts, openai-responses/native.ts): an SSE event written
// back as SSE text, the request body a pass-through sends, and the provider's error kept as it wrote it.
import { chainTransforms, sseDecoder, type SseEvent } from "./sse-decode";
import type {
  BuiltRequest,
  NativeAdapter,
  NativeRequest,
  NativeWire,
  ProviderAdapter,
  RawEvent,
  StreamEvent,
  UpstreamError,
  UpstreamTarget,
} from "./types";
import { mergeExtensions } from "./extensions";
import { withoutCredential } from "./upstream-errors";

/** An SSE event as text: the same event name, id and data lines the upstream wrote (comments are not kept). */
export function sseText(e: SseEvent): string {
  let out = e.event ? `event: ${e.event}\n` : "";
  if (e.id !== undefined) out += `id: ${e.id}\n`;
  // A multi-line data field comes back as the lines it was sent in.
  out += e.data.includes("\n") ? `data: ${e.data.split("\n").join("\ndata: ")}\n\n` : `data: ${e.data}\n\n`;
  return out;
}

export function rawEvent(e: SseEvent, content: boolean, chars = 0): RawEvent {
  return { type: "raw", text: sseText(e), content, chars };
}

/**
 * The event's type: its `event:` name, else the data's leading `"type"` (a server that writes no event
 * lines), read from the text without parsing it.
 */
export function eventType(e: SseEvent): string {
  if (e.event) return e.event;
  const m = /^\{\s*"type"\s*:\s*"([^"]+)"/.exec(e.data);
  return m ? m[1]! : "";
}

/**
 * The body a pass-through sends: the client's, with the model replaced by the route's and the provider's
 * `extensions` merged in. `stream` is set only when the call streams (a client's `false` stays as sent).
 */
export function nativeBody(native: NativeRequest, target: UpstreamTarget, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { ...native.body, model: target.providerModelId };
  if (stream) body.stream = true;
  mergeExtensions(body, target.extensions);
  return body;
}

/** The provider's own error answer kept on the classified error, with the attempt's credential cut out. */
export function withNative(error: UpstreamError, status: number, body: string, credential: string | null | undefined): UpstreamError {
  error.native = { status, body: withoutCredential(body, credential) };
  return error;
}

/** Characters of output a content event carries, for the estimate: its data less the event's own JSON. */
export function contentChars(data: string, overhead: number): number {
  return Math.max(1, data.length - overhead);
}

/**
 * A wire's pass-through adapter: its own adapter's answers, credential checks and error reading, with
 * the native request, the native stream reader, and the provider's error answer kept as written.
 */
export function nativeAdapterOf(
  base: ProviderAdapter,
  wire: NativeWire,
  buildNative: (native: NativeRequest, target: UpstreamTarget, stream: boolean) => BuiltRequest,
  transformer: (target: UpstreamTarget) => Transformer<SseEvent, StreamEvent>,
): NativeAdapter {
  return {
    ...base,
    wire,
    buildNative,
    classifyError: (status, bodyText, headers, credential = null) =>
      withNative(base.classifyError(status, bodyText, headers, credential), status, bodyText, credential),
    streamTransform: (target) => chainTransforms(sseDecoder(), new TransformStream(transformer(target))),
    streamTransformer: transformer,
  };
}

const LF = 10;
const EVENT_LINE = new TextEncoder().encode("event: ");
const DATA_LINE = new TextEncoder().encode("\ndata: ");

function startsWith(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

/**
 * The pass-through of a native stream's content events (providers/types.ts PlainChoiceReader): an event
 * written `event: <name>` + `data: …` whose name `isContent` accepts is what the full path would write
 * unparsed anyway (rawEvent), so its bytes go to the client as they came, without decoding or SSE
 * parsing. Anything else (another layout, CRLF line ends, a data-only event) takes the full path.
 */
export class NativeContentBytes {
  readonly twoLine = true;
  choiceEnd = -1;
  /** Off once the stream failed or reached its terminal event: the full path then reads what follows. */
  on = true;

  constructor(
    private readonly isContent: (bytes: Uint8Array, from: number, to: number) => boolean,
    /** Bytes of such an event that are not output: its event line, its JSON around the text, its line ends. */
    readonly overhead: number,
  ) {}

  /** For bytes[start, end) (an event, `end` at its data line's end): `start` when it is a content event, else -1. */
  plainChoice(bytes: Uint8Array, start: number, end: number): number {
    if (!this.on || !startsWith(bytes, start, EVENT_LINE)) return -1;
    const nameEnd = bytes.indexOf(LF, start + EVENT_LINE.length);
    if (nameEnd < 0 || nameEnd >= end || !this.isContent(bytes, start + EVENT_LINE.length, nameEnd)) return -1;
    if (!startsWith(bytes, nameEnd, DATA_LINE)) return -1;
    this.choiceEnd = end + 2; // the event and its blank line
    return start;
  }
}

/** Whether bytes[from, to) are `name`'s characters (ASCII). */
export function bytesAre(bytes: Uint8Array, from: number, to: number, name: string): boolean {
  if (to - from !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (bytes[from + i] !== name.charCodeAt(i)) return false;
  return true;
}
