// PipelineEvent stream → Responses API SSE (`event: <type>` + `data: <json>`, sequence_number on
// each, no [DONE]). One output item is open at a time: a message (output_text or refusal part) or a
// function_call; a delta for another item closes the open one first, as OpenAI's own stream does.
// Exactly one terminal event is written: completed / incomplete on `done`, failed on `failed` or
// when the pipeline stream ends without a terminal event (flush).
import type { ChunkDelta, FinishReason } from "../../providers/types";
import type { PipelineEvent } from "../types";
import {
  buildResponse,
  finishStatus,
  functionCallItemId,
  messageItemId,
  responseId,
  type FunctionCallOutputItem,
  type ItemStatus,
  type MessageOutputItem,
  type OutputItem,
  type ResponseFields,
} from "./render";
import type { ResponsesEcho } from "./to-chat";

type PartKind = "output_text" | "refusal";
type OpenItem =
  | { kind: "message"; part: PartKind; index: number; item: MessageOutputItem }
  | { kind: "function_call"; chatIndex: number; index: number; item: FunctionCallOutputItem };

interface StreamState {
  seq: number;
  id: string;
  createdAt: number;
  model: string;
  output: OutputItem[];
  open: OpenItem | null;
  /** Function-call items by the chat tool_call index, for argument deltas. */
  calls: Map<number, FunctionCallOutputItem>;
  finish: FinishReason | null;
  terminated: boolean;
}

type Controller = TransformStreamDefaultController<string>;

function emit(state: StreamState, c: Controller, type: string, fields: Record<string, unknown>): void {
  const data = { type, sequence_number: state.seq++, ...fields };
  c.enqueue(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

const snapshot = <T>(value: T): T => structuredClone(value);

function partText(item: MessageOutputItem): string {
  const part = item.content[0];
  return part?.type === "refusal" ? part.refusal : (part?.text ?? "");
}

function closeOpen(state: StreamState, c: Controller, status: ItemStatus): void {
  const open = state.open;
  if (!open) return;
  state.open = null;
  const output_index = open.index;
  open.item.status = status;
  if (open.kind === "message") {
    const { item } = open;
    const text = partText(item);
    const base = { item_id: item.id, output_index, content_index: 0 };
    if (open.part === "refusal") emit(state, c, "response.refusal.done", { ...base, refusal: text });
    else emit(state, c, "response.output_text.done", { ...base, text, logprobs: [] });
    emit(state, c, "response.content_part.done", { ...base, part: snapshot(item.content[0]) });
  } else {
    const { item } = open;
    emit(state, c, "response.function_call_arguments.done", { item_id: item.id, output_index, name: item.name, arguments: item.arguments });
  }
  emit(state, c, "response.output_item.done", { output_index, item: snapshot(open.item) });
}

function messageDelta(state: StreamState, c: Controller, part: PartKind, delta: string): void {
  let open = state.open;
  if (!open || open.kind !== "message" || open.part !== part) {
    closeOpen(state, c, "completed");
    const item: MessageOutputItem = { type: "message", id: messageItemId(), role: "assistant", status: "in_progress", content: [] };
    open = { kind: "message", part, index: state.output.length, item };
    state.output.push(item);
    state.open = open;
    emit(state, c, "response.output_item.added", { output_index: open.index, item: snapshot(item) });
    item.content.push(part === "refusal" ? { type: "refusal", refusal: "" } : { type: "output_text", text: "", annotations: [] });
    emit(state, c, "response.content_part.added", {
      item_id: item.id,
      output_index: open.index,
      content_index: 0,
      part: snapshot(item.content[0]),
    });
  }
  const content = open.item.content[0]!;
  const base = { item_id: open.item.id, output_index: open.index, content_index: 0 };
  if (content.type === "refusal") {
    content.refusal += delta;
    emit(state, c, "response.refusal.delta", { ...base, delta });
  } else {
    content.text += delta;
    emit(state, c, "response.output_text.delta", { ...base, delta, logprobs: [] });
  }
}

function toolCallDelta(state: StreamState, c: Controller, call: NonNullable<ChunkDelta["tool_calls"]>[number]): void {
  let item = state.calls.get(call.index);
  if (!item) {
    closeOpen(state, c, "completed");
    item = {
      type: "function_call",
      id: functionCallItemId(),
      call_id: call.id ?? "",
      name: call.function?.name ?? "",
      arguments: "",
      status: "in_progress",
    };
    state.calls.set(call.index, item);
    state.open = { kind: "function_call", chatIndex: call.index, index: state.output.length, item };
    state.output.push(item);
    emit(state, c, "response.output_item.added", { output_index: state.open.index, item: snapshot(item) });
  }
  // Some providers send the id or name after the first fragment.
  if (call.id && !item.call_id) item.call_id = call.id;
  if (call.function?.name && !item.name) item.name = call.function.name;
  const args = call.function?.arguments;
  if (!args) return;
  item.arguments += args;
  // Arguments for an item already closed (interleaved calls) are kept for the final response only.
  const open = state.open;
  if (open?.kind === "function_call" && open.item === item) {
    emit(state, c, "response.function_call_arguments.delta", { item_id: item.id, output_index: open.index, delta: args });
  }
}

function onDelta(state: StreamState, c: Controller, event: Extract<PipelineEvent, { type: "delta" }>): void {
  if (event.model) state.model = event.model;
  const { delta } = event;
  if (delta.refusal) messageDelta(state, c, "refusal", delta.refusal);
  if (delta.content) messageDelta(state, c, "output_text", delta.content);
  for (const call of delta.tool_calls ?? []) toolCallDelta(state, c, call);
  if (event.finishReason) state.finish = event.finishReason;
}

function terminal(
  state: StreamState,
  c: Controller,
  echo: ResponsesEcho,
  fields: Omit<ResponseFields, "id" | "createdAt" | "model" | "output">,
): void {
  state.terminated = true;
  const response = buildResponse({ id: state.id, createdAt: state.createdAt, model: state.model, output: state.output, ...fields }, echo);
  const type =
    fields.status === "failed" ? "response.failed" : fields.status === "incomplete" ? "response.incomplete" : "response.completed";
  emit(state, c, type, { response });
}

function fail(
  state: StreamState,
  c: Controller,
  echo: ResponsesEcho,
  error: { code: string; message: string },
  routing?: ResponseFields["routing"],
): void {
  // Items cut short by the failure stay in the output, marked incomplete, with no .done events.
  if (state.open) state.open.item.status = "incomplete";
  state.open = null;
  terminal(state, c, echo, { status: "failed", usage: null, error, routing });
}

/** Encodes one response's pipeline events as Responses API SSE text. */
export function responsesStreamTransformer(echo: ResponsesEcho, id: string = responseId()): Transformer<PipelineEvent, string> {
  const state: StreamState = {
    seq: 0,
    id,
    createdAt: Math.floor(Date.now() / 1000),
    model: echo.model,
    output: [],
    open: null,
    calls: new Map(),
    finish: null,
    terminated: false,
  };
  return {
    start(c) {
      const response = buildResponse(
        { id, createdAt: state.createdAt, model: state.model, status: "in_progress", output: [], usage: null },
        echo,
      );
      emit(state, c, "response.created", { response });
      emit(state, c, "response.in_progress", { response });
    },
    transform(event, c) {
      if (state.terminated) return;
      if (event.type === "raw") return c.enqueue(event.text); // native events: native-stream.ts writes them
      if (event.type === "delta") return onDelta(state, c, event);
      if (event.type === "failed") return fail(state, c, echo, { code: event.error.code, message: event.error.message }, event.routing);
      const { status, incomplete_details } = finishStatus(state.finish);
      closeOpen(state, c, status === "completed" ? "completed" : "incomplete");
      terminal(state, c, echo, { status, incompleteDetails: incomplete_details, usage: event.usage, routing: event.routing });
    },
    flush(c) {
      if (!state.terminated) fail(state, c, echo, { code: "internal_error", message: "The response stream ended before it was complete." });
    },
  };
}

/** The same transformer as a TransformStream (for pipeThrough). */
export function responsesStreamEncoder(echo: ResponsesEcho, id: string = responseId()): TransformStream<PipelineEvent, string> {
  return new TransformStream(responsesStreamTransformer(echo, id));
}
