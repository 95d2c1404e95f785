// PipelineEvent stream → Anthropic Messages SSE: message_start, ping, content_block_start /
// _delta / _stop per text or tool_use block, message_delta (stop_reason, usage, plus our
// routing_metadata), message_stop. A failure (a `failed` event, or the pipeline stream ending
// without a terminal event) is one `error` event, which the Anthropic SDK raises as an APIError.
// message_start waits for the first event so it can carry the provider's model name.
import type { ChunkDelta, FinishReason } from "../../providers/types";
import type { PipelineEvent } from "../types";
import { anthropicErrorType } from "./errors";
import { anthropicMessageId, anthropicUsage, stopReason } from "./render";

interface StreamState {
  id: string;
  model: string;
  started: boolean;
  /** Index the next content block gets. */
  nextIndex: number;
  open: { kind: "text" | "tool_use"; index: number } | null;
  /** Block index of each chat tool_call index. */
  toolBlocks: Map<number, number>;
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

function closeOpen(state: StreamState, c: Controller): void {
  if (!state.open) return;
  emit(c, "content_block_stop", { index: state.open.index });
  state.open = null;
}

function textDelta(state: StreamState, c: Controller, text: string): void {
  if (state.open?.kind !== "text") {
    closeOpen(state, c);
    state.open = { kind: "text", index: state.nextIndex++ };
    emit(c, "content_block_start", { index: state.open.index, content_block: { type: "text", text: "" } });
  }
  emit(c, "content_block_delta", { index: state.open.index, delta: { type: "text_delta", text } });
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
  const text = event.delta.refusal || event.delta.content;
  if (text) textDelta(state, c, text);
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
