// A Messages request passed through to an Anthropic route: the client's body and headers as it sent
// them (thinking, cache_control, betas, roles and block types the gateway has never heard of), and the
// events back as Anthropic wrote them. Only what metering and fallback need is read: message_start and
// message_delta for usage, content events to know the answer has begun, error events. Content deltas,
// the bulk of a stream, are not parsed.
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
import { anthropicAdapter } from "./adapter";
import { ANTHROPIC_VERSION, anthropicApiRoot } from "./request";
import { anthropicError, anthropicErrorStatus, anthropicUsage, type AnthropicUsageWire } from "./wire";

/** `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}`: not output. */
const DELTA_OVERHEAD = 75;

/** Block types that arrive whole in content_block_start (no deltas follow): they are output already. */
const STARTING_BLOCKS = new Set(["text", "thinking", "tool_use", "server_tool_use"]);

export const anthropicNativeAdapter: NativeAdapter = nativeAdapterOf(
  anthropicAdapter,
  "anthropic",
  (native, target, stream) => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: stream ? "text/event-stream" : "application/json",
      "anthropic-version": native.headers["anthropic-version"] ?? ANTHROPIC_VERSION,
    };
    const beta = native.headers["anthropic-beta"];
    if (beta !== undefined) headers["anthropic-beta"] = beta;
    if (target.apiKey) headers["x-api-key"] = target.apiKey;
    const body = JSON.stringify(nativeBody(native, target, stream));
    return { url: `${anthropicApiRoot(target.baseUrl)}/v1/messages`, headers, body, warnings: [] };
  },
  (target) => anthropicNativeTransformer(target),
);

interface State {
  usage: AnthropicUsageWire;
  usageSent: boolean;
  /** message_delta came: the stream's terminal part (message_stop) follows. */
  terminal: boolean;
  failed: boolean;
  credential: string | null;
}

/** `event: content_block_delta` + `data: ` + the JSON around its text + the blank line: not output. */
const EVENT_OVERHEAD = "event: content_block_delta\ndata: ".length + DELTA_OVERHEAD + 2;

const isDelta = (bytes: Uint8Array, from: number, to: number) => bytesAre(bytes, from, to, "content_block_delta");

export function anthropicNativeTransformer(target: UpstreamTarget): Transformer<SseEvent, StreamEvent> & PlainChoiceReader {
  const state: State = { usage: {}, usageSent: false, terminal: false, failed: false, credential: target.apiKey };
  // Content deltas, the bulk of a stream, pass as bytes once the client is being served (upstream-events.ts).
  const bytes = new NativeContentBytes(isDelta, EVENT_OVERHEAD);
  return {
    twoLine: true,
    overhead: EVENT_OVERHEAD,
    plainChoice: (b, start, end) => bytes.plainChoice(b, start, end),
    get choiceEnd() {
      return bytes.choiceEnd;
    },
    transform(e, c) {
      if (state.failed) return;
      for (const out of translate(state, e)) c.enqueue(out);
      bytes.on = !state.failed && !state.terminal;
    },
    flush(c) {
      if (state.failed) return;
      if (!state.terminal) {
        c.enqueue({ type: "error", error: malformedStreamError("the stream ended before message_delta") });
        return;
      }
      if (!state.usageSent) c.enqueue({ type: "usage", usage: anthropicUsage(state.usage) });
    },
  };
}

function translate(state: State, e: SseEvent): StreamEvent[] {
  const type = eventType(e);
  if (type === "content_block_delta") return [rawEvent(e, true, contentChars(e.data, DELTA_OVERHEAD))];
  if (type === "ping" || type === "content_block_stop" || type === "message_stop") return [rawEvent(e, false)];
  const data = tryParseJson(e.data);
  if (!isRecord(data)) {
    state.failed = true;
    return [{ type: "error", error: malformedStreamError("not an Anthropic event") }];
  }
  switch (type) {
    case "message_start": {
      const message = isRecord(data.message) ? data.message : {};
      if (isRecord(message.usage)) state.usage = { ...(message.usage as AnthropicUsageWire) };
      return [rawEvent(e, false)];
    }
    case "content_block_start": {
      const block = isRecord(data.content_block) ? data.content_block : {};
      return [rawEvent(e, typeof block.type === "string" && !STARTING_BLOCKS.has(block.type))];
    }
    case "message_delta": {
      // Cumulative: output_tokens, and on newer models the final input and cache counts.
      if (isRecord(data.usage))
        for (const [k, v] of Object.entries(data.usage)) if (typeof v === "number") (state.usage as Record<string, number>)[k] = v;
      state.terminal = true;
      state.usageSent = true;
      const held: RawEvent = { ...rawEvent(e, false), held: { event: type, data, at: "top" } };
      return [{ type: "usage", usage: anthropicUsage(state.usage) }, held];
    }
    case "error": {
      state.failed = true;
      const error = anthropicError(data);
      const status = anthropicErrorStatus(error?.type);
      const classified = classifyStatus(status, error?.message ?? "Upstream stream failed", new Headers(), state.credential);
      return [{ type: "error", error: withNative(classified, status, sseText(e), state.credential) }];
    }
    default:
      return [rawEvent(e, false)]; // event types added after this was written pass as they are
  }
}
