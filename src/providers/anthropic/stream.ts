// Anthropic streaming events → internal stream events.
//   message_start        → role delta (and the input side of usage)
//   content_block_start  → a tool call's id and name (tool_use), nothing for text
//   content_block_delta  → text_delta → content; input_json_delta → tool call arguments
//   message_delta        → the finish reason (and the final output token count)
//   message_stop         → usage, once
//   error                → error event; ping, content_block_stop, thinking deltas → nothing
// Tool calls are numbered in order of appearance, independent of Anthropic's block indices.
import type { DeltaEvent, FinishReason, StreamEvent, UpstreamTarget } from "../types";
import type { SseEvent } from "../sse-decode";
import { isRecord } from "../content-parts";
import { classifyStatus, malformedStreamError, tryParseJson } from "../upstream-errors";
import { anthropicError, anthropicErrorStatus, anthropicFinishReason, anthropicUsage, type AnthropicUsageWire } from "./wire";

interface AnthropicStreamState {
  id: string;
  model: string;
  created: number;
  usageWire: AnthropicUsageWire;
  /** Anthropic content block index → OpenAI tool_calls index. */
  toolIndexByBlock: Map<number, number>;
  usageSent: boolean;
  failed: boolean;
  /** The key the attempt sent: an error event never carries it on (upstream-errors.ts). */
  credential: string | null;
}

export function anthropicStreamTransformer(target: UpstreamTarget): Transformer<SseEvent, StreamEvent> {
  const state: AnthropicStreamState = {
    id: "",
    model: target.providerModelId,
    created: Math.floor(Date.now() / 1000),
    usageWire: {},
    toolIndexByBlock: new Map(),
    usageSent: false,
    failed: false,
    credential: target.apiKey,
  };
  return {
    start() {},
    transform(event, controller) {
      if (state.failed || state.usageSent) return;
      const data = tryParseJson(event.data);
      if (!isRecord(data) || typeof data.type !== "string") {
        state.failed = true;
        controller.enqueue({ type: "error", error: malformedStreamError("not an Anthropic event") });
        return;
      }
      for (const out of translateEvent(state, data)) controller.enqueue(out);
    },
    flush(controller) {
      if (!state.usageSent) controller.enqueue(usageEvent(state));
    },
  };
}

function usageEvent(state: AnthropicStreamState): StreamEvent {
  state.usageSent = true;
  return { type: "usage", usage: anthropicUsage(state.usageWire) };
}

function translateEvent(state: AnthropicStreamState, data: Record<string, unknown>): StreamEvent[] {
  const delta = (d: DeltaEvent["delta"], finishReason: FinishReason | null = null): DeltaEvent => ({
    type: "delta",
    id: state.id,
    created: state.created,
    model: state.model,
    choiceIndex: 0,
    delta: d,
    finishReason,
  });
  switch (data.type) {
    case "message_start": {
      const message = isRecord(data.message) ? data.message : {};
      if (typeof message.id === "string") state.id = message.id;
      if (typeof message.model === "string") state.model = message.model;
      if (isRecord(message.usage)) state.usageWire = { ...(message.usage as AnthropicUsageWire) };
      return [delta({ role: "assistant", content: "" })];
    }
    case "content_block_start": {
      const block = isRecord(data.content_block) ? data.content_block : {};
      if (block.type !== "tool_use" || typeof data.index !== "number") return [];
      const toolIndex = state.toolIndexByBlock.size;
      state.toolIndexByBlock.set(data.index, toolIndex);
      const id = typeof block.id === "string" ? block.id : `toolu_${toolIndex}`;
      const name = typeof block.name === "string" ? block.name : "";
      return [delta({ tool_calls: [{ index: toolIndex, id, type: "function", function: { name, arguments: "" } }] })];
    }
    case "content_block_delta": {
      const d = isRecord(data.delta) ? data.delta : {};
      if (d.type === "text_delta" && typeof d.text === "string") return [delta({ content: d.text })];
      // Thinking streams as chat's reasoning_content (the DeepSeek / LiteLLM convention).
      if (d.type === "thinking_delta" && typeof d.thinking === "string" && d.thinking !== "")
        return [delta({ extra: { reasoning_content: d.thinking } })];
      const toolIndex = typeof data.index === "number" ? state.toolIndexByBlock.get(data.index) : undefined;
      if (d.type !== "input_json_delta" || typeof d.partial_json !== "string" || d.partial_json === "" || toolIndex === undefined)
        return [];
      return [delta({ tool_calls: [{ index: toolIndex, function: { arguments: d.partial_json } }] })];
    }
    case "message_delta": {
      // message_delta usage is cumulative; it carries output_tokens and sometimes final input counts.
      if (isRecord(data.usage)) state.usageWire = { ...state.usageWire, ...definedOnly(data.usage as AnthropicUsageWire) };
      const d = isRecord(data.delta) ? data.delta : {};
      const stopReason = typeof d.stop_reason === "string" ? d.stop_reason : null;
      return [delta({}, anthropicFinishReason(stopReason, state.toolIndexByBlock.size > 0))];
    }
    case "message_stop":
      return [usageEvent(state)];
    case "error": {
      state.failed = true;
      const error = anthropicError(data);
      const status = anthropicErrorStatus(error?.type);
      return [
        { type: "error", error: classifyStatus(status, error?.message ?? "Upstream stream failed", new Headers(), state.credential) },
      ];
    }
    default:
      return []; // ping, content_block_stop, signature deltas, and event types added after this was written
  }
}

function definedOnly(usage: AnthropicUsageWire): AnthropicUsageWire {
  return Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== null && v !== undefined)) as AnthropicUsageWire;
}

/** The same transformer as a TransformStream (for pipeThrough). */
export function anthropicStreamTranslator(target: UpstreamTarget): TransformStream<SseEvent, StreamEvent> {
  return new TransformStream(anthropicStreamTransformer(target));
}
