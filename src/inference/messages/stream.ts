// PipelineEvent stream → Anthropic Messages SSE: message_start, ping, content_block_start /
// _delta / _stop per thinking, redacted_thinking, text or tool_use block, message_delta (stop_reason,
// usage, plus our routing_metadata), message_stop. Reasoning comes from the deltas' fragments
// (`extra.reasoning_details`) and becomes blocks as render.ts makes them (reasoning-blocks.ts); a
// carried run's signature covers the whole run, so it is sent when its block ends. A failure (a `failed` event, or the pipeline stream ending
// without a terminal event) is one `error` event, which the Anthropic SDK raises as an APIError.
// message_start waits for the first event so it can carry the provider's model name.
import { encodeCarried, fragmentsOf, mergeFragment, type ReasoningDetail, type ReasoningFragment } from "../../providers/reasoning";
import type { ChunkDelta, FinishReason } from "../../providers/types";
import type { PipelineEvent } from "../types";
import { citationOf } from "./citations";
import { anthropicErrorType } from "./errors";
import { isNativeEntry } from "./reasoning-blocks";
import { anthropicMessageId, anthropicUsage, stopReason } from "./render";

/** A thinking block and the reasoning entries (by index) it stands for. */
interface ThinkingBlock {
  index: number;
  /** Other families' entries, whose signature is the run's token. */
  carried: boolean;
  entries: number[];
  /** The entry whose text came last (entries' texts are joined by a blank line, as reasoningText does). */
  lastText: number | null;
  /** The token last sent for a carried block ("" before its end). */
  sent: string;
  /** A redacted_thinking block (complete when it starts). */
  redacted?: boolean;
}

interface StreamState {
  id: string;
  model: string;
  started: boolean;
  /** Index the next content block gets. */
  nextIndex: number;
  open: { kind: "text" | "tool_use"; index: number } | { kind: "thinking"; index: number; block: ThinkingBlock } | null;
  /** Block index of each chat tool_call index. */
  toolBlocks: Map<number, number>;
  /** The message's reasoning entries so far, and the block of each. */
  reasoning: ReasoningDetail[];
  thinkingBlocks: Map<number, ThinkingBlock>;
  /** The answer's text so far (citations cut their cited text from it), and its last text block. */
  content: string;
  lastText: number | null;
  finish: FinishReason | null;
  terminated: boolean;
}

type Controller = TransformStreamDefaultController<string>;

function emit(c: Controller, type: string, fields: Record<string, unknown> = {}): void {
  c.enqueue(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`);
}

function ensureStarted(state: StreamState, c: Controller): void {
  if (state.started) return;
  state.started = true;
  // Input tokens are known only at the end; message_delta repeats the final counts.
  const usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = {
    id: state.id,
    type: "message",
    role: "assistant",
    model: state.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  };
  emit(c, "message_start", { message });
  emit(c, "ping");
}

/** A carried block's token for its entries as they are now, when it differs from the one sent. */
function sendCarriedSignature(state: StreamState, c: Controller, block: ThinkingBlock): void {
  const signature = encodeCarried(block.entries.map((i) => state.reasoning[i]!));
  if (signature === block.sent) return;
  block.sent = signature;
  emit(c, "content_block_delta", { index: block.index, delta: { type: "signature_delta", signature } });
}

function closeOpen(state: StreamState, c: Controller): void {
  if (!state.open) return;
  if (state.open.kind === "thinking" && state.open.block.carried) sendCarriedSignature(state, c, state.open.block);
  emit(c, "content_block_stop", { index: state.open.index });
  state.open = null;
}

function openText(state: StreamState, c: Controller): number {
  if (state.open?.kind === "text") return state.open.index;
  closeOpen(state, c);
  state.open = { kind: "text", index: state.nextIndex++ };
  state.lastText = state.open.index;
  emit(c, "content_block_start", { index: state.open.index, content_block: { type: "text", text: "" } });
  return state.open.index;
}

function textDelta(state: StreamState, c: Controller, text: string): void {
  emit(c, "content_block_delta", { index: openText(state, c), delta: { type: "text_delta", text } });
}

/** Citations go to the text they cite: the open text block, else the last one, else a new one. */
function citationsDelta(state: StreamState, c: Controller, annotations: unknown): void {
  if (!Array.isArray(annotations)) return;
  for (const annotation of annotations) {
    const citation = citationOf(annotation, state.content);
    if (!citation) continue;
    const index = state.open?.kind === "text" ? state.open.index : (state.lastText ?? openText(state, c));
    emit(c, "content_block_delta", { index, delta: { type: "citations_delta", citation } });
  }
}

/** The block a new entry goes to: the open carried run when both are another family's, else a new block. */
function blockFor(state: StreamState, c: Controller, entryIndex: number): ThinkingBlock {
  const entry = state.reasoning[entryIndex]!;
  const native = isNativeEntry(entry);
  if (!native && state.open?.kind === "thinking" && state.open.block.carried) {
    state.open.block.entries.push(entryIndex);
    return state.open.block;
  }
  closeOpen(state, c);
  const block: ThinkingBlock = { index: state.nextIndex++, carried: !native, entries: [entryIndex], lastText: null, sent: "" };
  if (native && entry.type === "reasoning.encrypted") {
    // Encrypted data comes whole in one fragment: the block is complete at once.
    block.redacted = true;
    emit(c, "content_block_start", { index: block.index, content_block: { type: "redacted_thinking", data: entry.data } });
    emit(c, "content_block_stop", { index: block.index });
    return block;
  }
  state.open = { kind: "thinking", index: block.index, block };
  emit(c, "content_block_start", { index: block.index, content_block: { type: "thinking", thinking: "", signature: "" } });
  return block;
}

function reasoningDelta(state: StreamState, c: Controller, fragment: ReasoningFragment): void {
  mergeFragment(state.reasoning, fragment);
  let block = state.thinkingBlocks.get(fragment.index);
  if (!block) {
    block = blockFor(state, c, fragment.index);
    state.thinkingBlocks.set(fragment.index, block);
  }
  if (block.redacted) return;
  let text = fragment.text ?? fragment.summary ?? "";
  if (text !== "") {
    if (block.lastText !== null && block.lastText !== fragment.index) text = `\n\n${text}`;
    block.lastText = fragment.index;
    emit(c, "content_block_delta", { index: block.index, delta: { type: "thinking_delta", thinking: text } });
  }
  if (!block.carried && fragment.signature) {
    emit(c, "content_block_delta", { index: block.index, delta: { type: "signature_delta", signature: fragment.signature } });
  }
  // A fragment after its carried block ended (an upstream that orders reasoning late): the token is renewed.
  if (block.carried && block.sent !== "") sendCarriedSignature(state, c, block);
}

/** A delta's reasoning fragments; a bare reasoning_content (DeepSeek's) is text of one unsigned entry. */
function fragmentsIn(delta: ChunkDelta): ReasoningFragment[] {
  const fragments = fragmentsOf(delta.extra);
  if (fragments.length > 0) return fragments;
  const text = delta.extra?.reasoning_content;
  return typeof text === "string" && text !== "" ? [{ type: "reasoning.text", format: "unknown", index: 0, text }] : [];
}

function toolCallDelta(state: StreamState, c: Controller, call: NonNullable<ChunkDelta["tool_calls"]>[number]): void {
  let index = state.toolBlocks.get(call.index);
  if (index === undefined) {
    closeOpen(state, c);
    index = state.nextIndex++;
    state.toolBlocks.set(call.index, index);
    state.open = { kind: "tool_use", index };
    const block = { type: "tool_use", id: call.id ?? "", name: call.function?.name ?? "", input: {} };
    emit(c, "content_block_start", { index, content_block: block });
  }
  // Interleaved arguments for an earlier call still go to its own block index.
  const args = call.function?.arguments;
  if (args) emit(c, "content_block_delta", { index, delta: { type: "input_json_delta", partial_json: args } });
}

function onDelta(state: StreamState, c: Controller, event: Extract<PipelineEvent, { type: "delta" }>): void {
  if (!state.started && event.model) state.model = event.model;
  ensureStarted(state, c);
  for (const fragment of fragmentsIn(event.delta)) reasoningDelta(state, c, fragment);
  const text = event.delta.refusal || event.delta.content;
  if (text) textDelta(state, c, text);
  if (event.delta.content) state.content += event.delta.content;
  citationsDelta(state, c, event.delta.extra?.annotations);
  for (const call of event.delta.tool_calls ?? []) toolCallDelta(state, c, call);
  if (event.finishReason) state.finish = event.finishReason;
}

function fail(state: StreamState, c: Controller, code: string, message: string): void {
  state.terminated = true;
  emit(c, "error", { error: { type: anthropicErrorType(code), message } });
}

export interface MessagesStreamOptions {
  /** Model named in message_start when the first event carries none (e.g. the requested model). */
  model?: string;
  id?: string;
}

/** Encodes one message's pipeline events as Anthropic Messages SSE text. */
export function messagesStreamTransformer(options: MessagesStreamOptions = {}): Transformer<PipelineEvent, string> {
  const state: StreamState = {
    id: options.id ?? anthropicMessageId(),
    model: options.model ?? "",
    started: false,
    nextIndex: 0,
    open: null,
    toolBlocks: new Map(),
    reasoning: [],
    thinkingBlocks: new Map(),
    content: "",
    lastText: null,
    finish: null,
    terminated: false,
  };
  return {
    start() {
      // Nothing yet: message_start waits for the first event (see the header comment).
    },
    transform(event, c) {
      if (state.terminated) return;
      if (event.type === "raw") return c.enqueue(event.text); // native events: native-stream.ts writes them
      if (event.type === "delta") return onDelta(state, c, event);
      if (event.type === "failed") return fail(state, c, event.error.code, event.error.message);
      ensureStarted(state, c);
      closeOpen(state, c);
      state.terminated = true;
      const usage = anthropicUsage(event.usage);
      emit(c, "message_delta", {
        delta: { stop_reason: stopReason(state.finish), stop_sequence: null },
        usage,
        routing_metadata: event.routing,
      });
      emit(c, "message_stop");
    },
    flush(c) {
      if (!state.terminated) fail(state, c, "internal_error", "The message stream ended before it was complete.");
    },
  };
}

/** The same transformer as a TransformStream (for pipeThrough). */
export function messagesStreamEncoder(options: MessagesStreamOptions = {}): TransformStream<PipelineEvent, string> {
  return new TransformStream(messagesStreamTransformer(options));
}
