// Anthropic streaming events → internal stream events.
//   message_start        → role delta (and the input side of usage)
//   content_block_start  → a tool call's id and name (tool_use); a redacted_thinking block's data
//   content_block_delta  → text_delta → content; input_json_delta → tool call arguments;
//                          thinking_delta / signature_delta → reasoning fragments (reasoning.ts);
//                          citations_delta → held until the text block ends
//   content_block_stop   → a cited text block's annotations, over the span its text took
//   message_delta        → the finish reason (and the final output token count)
//   message_stop         → usage, once
//   error                → error event; ping → nothing
// Tool calls and reasoning entries are numbered in order of appearance, independent of Anthropic's
// block indices.
import type { ChunkDelta, DeltaEvent, FinishReason, StreamEvent, UpstreamTarget } from "../types";
import type { SseEvent } from "../sse-decode";
import { isRecord } from "../content-parts";
import { ANTHROPIC_FORMAT, type ReasoningFragment } from "../reasoning";
import { classifyStatus, malformedStreamError, tryParseJson } from "../upstream-errors";
import { citationAnnotations } from "./citations";
import { anthropicError, anthropicErrorStatus, anthropicFinishReason, anthropicUsage, type AnthropicUsageWire } from "./wire";

interface AnthropicStreamState {
  id: string;
  model: string;
  created: number;
  usageWire: AnthropicUsageWire;
  /** Anthropic content block index → OpenAI tool_calls index. */
  toolIndexByBlock: Map<number, number>;
  /** Anthropic content block index → the entry's position in the message's reasoning_details. */
  reasoningIndexByBlock: Map<number, number>;
  /** Text blocks by block index: where their text starts in the content, and what they cite. */
  textBlocks: Map<number, { start: number; citations: unknown[] }>;
  /** Length of the content streamed so far (annotations index into it). */
  contentLength: number;
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
    reasoningIndexByBlock: new Map(),
    textBlocks: new Map(),
    contentLength: 0,
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
    case "content_block_start":
      return blockStart(state, data).map((d) => delta(d));
    case "content_block_delta":
      return blockDelta(state, data).map((d) => delta(d));
    case "content_block_stop": {
      const annotations = blockStop(state, data);
      return annotations ? [delta({ extra: { annotations } })] : [];
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
      return []; // ping, and event types added after this was written
  }
}

const blockIndex = (data: Record<string, unknown>) => (typeof data.index === "number" ? data.index : -1);

/** The reasoning entry a thinking block is, numbered when it first says something. */
function reasoningIndex(state: AnthropicStreamState, block: number): number {
  let index = state.reasoningIndexByBlock.get(block);
  if (index === undefined) {
    index = state.reasoningIndexByBlock.size;
    state.reasoningIndexByBlock.set(block, index);
  }
  return index;
}

/** A text fragment also carries the text as reasoning_content (DeepSeek's chat field, convention 3). */
function reasoningDelta(fragment: ReasoningFragment): ChunkDelta {
  const extra: Record<string, unknown> = { reasoning_details: [fragment] };
  if (fragment.text) extra.reasoning_content = fragment.text;
  return { extra };
}

function thinkingFragments(state: AnthropicStreamState, block: number, thinking: unknown, signature: unknown): ChunkDelta[] {
  const out: ChunkDelta[] = [];
  const base = { type: "reasoning.text", format: ANTHROPIC_FORMAT } as const;
  if (typeof thinking === "string" && thinking !== "")
    out.push(reasoningDelta({ ...base, index: reasoningIndex(state, block), text: thinking }));
  if (typeof signature === "string" && signature !== "")
    out.push(reasoningDelta({ ...base, index: reasoningIndex(state, block), signature }));
  return out;
}

function blockStart(state: AnthropicStreamState, data: Record<string, unknown>): ChunkDelta[] {
  const block = isRecord(data.content_block) ? data.content_block : {};
  const at = blockIndex(data);
  switch (block.type) {
    case "tool_use": {
      if (at < 0) return [];
      const toolIndex = state.toolIndexByBlock.size;
      state.toolIndexByBlock.set(at, toolIndex);
      const id = typeof block.id === "string" ? block.id : `toolu_${toolIndex}`;
      const name = typeof block.name === "string" ? block.name : "";
      return [{ tool_calls: [{ index: toolIndex, id, type: "function", function: { name, arguments: "" } }] }];
    }
    case "thinking":
      return thinkingFragments(state, at, block.thinking, block.signature);
    case "redacted_thinking": {
      if (typeof block.data !== "string") return [];
      const index = reasoningIndex(state, at);
      return [reasoningDelta({ type: "reasoning.encrypted", format: ANTHROPIC_FORMAT, index, data: block.data })];
    }
    case "text": {
      state.textBlocks.set(at, { start: state.contentLength, citations: Array.isArray(block.citations) ? [...block.citations] : [] });
      return typeof block.text === "string" && block.text !== "" ? [textDelta(state, block.text)] : [];
    }
    default:
      return [];
  }
}

function textDelta(state: AnthropicStreamState, text: string): ChunkDelta {
  state.contentLength += text.length;
  return { content: text };
}

function blockDelta(state: AnthropicStreamState, data: Record<string, unknown>): ChunkDelta[] {
  const d = isRecord(data.delta) ? data.delta : {};
  const at = blockIndex(data);
  switch (d.type) {
    case "text_delta":
      return typeof d.text === "string" ? [textDelta(state, d.text)] : [];
    case "thinking_delta":
      return thinkingFragments(state, at, d.thinking, undefined);
    case "signature_delta":
      return thinkingFragments(state, at, undefined, d.signature);
    case "citations_delta": {
      const text = state.textBlocks.get(at);
      if (text && isRecord(d.citation)) text.citations.push(d.citation);
      return [];
    }
    case "input_json_delta": {
      const toolIndex = state.toolIndexByBlock.get(at);
      if (typeof d.partial_json !== "string" || d.partial_json === "" || toolIndex === undefined) return [];
      return [{ tool_calls: [{ index: toolIndex, function: { arguments: d.partial_json } }] }];
    }
    default:
      return [];
  }
}

/** A text block's citations, once its span is known. */
function blockStop(state: AnthropicStreamState, data: Record<string, unknown>): unknown[] | null {
  const text = state.textBlocks.get(blockIndex(data));
  if (!text || text.citations.length === 0) return null;
  const annotations = citationAnnotations(text.citations, { start: text.start, end: state.contentLength });
  return annotations.length > 0 ? annotations : null;
}

function definedOnly(usage: AnthropicUsageWire): AnthropicUsageWire {
  return Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== null && v !== undefined)) as AnthropicUsageWire;
}

/** The same transformer as a TransformStream (for pipeThrough). */
export function anthropicStreamTranslator(target: UpstreamTarget): TransformStream<SseEvent, StreamEvent> {
  return new TransformStream(anthropicStreamTransformer(target));
}
