// A Responses request passed through to a route that speaks the Responses API: the client's body and
// OpenAI-Beta header as sent (include, reasoning, prompt_cache_key, store, previous_response_id, the
// reasoning items of earlier turns, built-in tools), and the events back as the provider wrote them.
// Only what metering and fallback need is read: the terminal response's usage, the failure events, and
// which events are the answer itself. Delta events, the bulk of a stream, are not parsed.
import type { NativeAdapter, PlainChoiceReader, RawEvent, StreamEvent, UpstreamTarget } from "../types";
import type { SseEvent } from "../sse-decode";
import { isRecord } from "../content-parts";
import { classifyStatus, malformedStreamError, tryParseJson } from "../upstream-errors";
import {
  bytesAre,
  contentChars,
  eventType,
  NativeContentBytes,
  nativeAdapterOf,
  nativeBody,
  rawEvent,
  sseText,
  withNative,
} from "../native-events";
import { trimSlash } from "../openai-compatible/request";
import { openAIResponsesAdapter } from "./adapter";
import { responsesError, responsesErrorStatus, responsesUsage, type ResponseObjectWire } from "./wire";

/** `{"type":"response.output_text.delta","sequence_number":0,"item_id":"msg_…","output_index":0,"content_index":0,"delta":""}`. */
const DELTA_OVERHEAD = 110;

/** Terminal events whose response carries the usage: the call is settled on them. */
const SETTLING = new Set(["response.completed", "response.incomplete"]);

export const openAIResponsesNativeAdapter: NativeAdapter = nativeAdapterOf(
  openAIResponsesAdapter,
  "responses",
  (native, target, stream) => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: stream ? "text/event-stream" : "application/json",
    };
    const beta = native.headers["openai-beta"];
    if (beta !== undefined) headers["openai-beta"] = beta;
    if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
    const body = JSON.stringify(nativeBody(native, target, stream));
    return { url: `${trimSlash(target.baseUrl)}/responses`, headers, body, warnings: [] };
  },
  (target) => responsesNativeTransformer(target),
);

interface State {
  terminal: boolean;
  failed: boolean;
  credential: string | null;
}

/** `event: response.output_text.delta` + `data: ` + the JSON around its text + the blank line: not output. */
const EVENT_OVERHEAD = "event: response.output_text.delta\ndata: ".length + DELTA_OVERHEAD + 2;

const DELTA_SUFFIX = ".delta";

/** A `response.….delta` event name (text, reasoning summary, function arguments…): what translate calls content. */
function isDelta(bytes: Uint8Array, from: number, to: number): boolean {
  if (to - from <= DELTA_SUFFIX.length || !bytesAre(bytes, from, from + 9, "response.")) return false;
  return bytesAre(bytes, to - DELTA_SUFFIX.length, to, DELTA_SUFFIX);
}

export function responsesNativeTransformer(target: UpstreamTarget): Transformer<SseEvent, StreamEvent> & PlainChoiceReader {
  const state: State = { terminal: false, failed: false, credential: target.apiKey };
  // Delta events, the bulk of a stream, pass as bytes once the client is being served (upstream-events.ts).
  const bytes = new NativeContentBytes(isDelta, EVENT_OVERHEAD);
  return {
    twoLine: true,
    overhead: EVENT_OVERHEAD,
    plainChoice: (b, start, end) => bytes.plainChoice(b, start, end),
    get choiceEnd() {
      return bytes.choiceEnd;
    },
    transform(e, c) {
      if (state.failed || state.terminal) return;
      for (const out of translate(state, e)) c.enqueue(out);
      bytes.on = !state.failed && !state.terminal;
    },
    flush(c) {
      if (!state.failed && !state.terminal)
        c.enqueue({ type: "error", error: malformedStreamError("the stream ended before response.completed") });
    },
  };
}

function translate(state: State, e: SseEvent): StreamEvent[] {
  const type = eventType(e);
  // Text, reasoning summary, function arguments and every other *.delta: the answer itself.
  if (type.endsWith(".delta")) return [rawEvent(e, true, contentChars(e.data, DELTA_OVERHEAD))];
  if (!SETTLING.has(type) && type !== "response.failed" && type !== "error") {
    // A finished output item (a reasoning item with only encrypted content, a built-in tool's call) is output too.
    return [rawEvent(e, type === "response.output_item.done")];
  }
  const data = tryParseJson(e.data);
  if (!isRecord(data)) {
    state.failed = true;
    return [{ type: "error", error: malformedStreamError("not a Responses event") }];
  }
  if (SETTLING.has(type)) {
    state.terminal = true;
    const response = (isRecord(data.response) ? data.response : {}) as ResponseObjectWire;
    const held: RawEvent = { ...rawEvent(e, false), held: { event: type, data, at: "response" } };
    return [{ type: "usage", usage: responsesUsage(response.usage) }, held];
  }
  state.failed = true;
  const wire = type === "error" ? data : isRecord(data.response) ? data.response : {};
  const error = responsesError(wire);
  const status = responsesErrorStatus(error?.code);
  const classified = classifyStatus(status, error?.message ?? "Upstream response failed", new Headers(), state.credential);
  return [{ type: "error", error: withNative(classified, status, sseText(e), state.credential) }];
}
