// PipelineEvent stream → Responses API SSE (`event: <type>` + `data: <json>`, sequence_number on
// each, no [DONE]). One output item is open at a time: a reasoning item (stream-reasoning.ts), a
// message (output_text or refusal part), a function_call or a custom_tool_call; a delta for another
// item closes the open one first, as OpenAI's own stream does.
// Exactly one terminal event is written: completed / incomplete on `done`, failed on `failed` or
// when the pipeline stream ends without a terminal event (flush).
import type { ChunkDelta } from "../../providers/types";
import type { PipelineEvent } from "../types";
import { responsesAnnotations } from "./annotations";
import { customInput, partialInput } from "./custom-tools";
import {
  buildResponse,
  callItem,
  finishStatus,
  logprobsOf,
  messageItemId,
  responseId,
  textPart,
  wantsLogprobs,
  type ItemStatus,
  type MessageOutputItem,
  type OutputTextPart,
  type ResponseFields,
} from "./render";
import { closeLate, closeReasoning, deltaFragments, finishReasoningItem, reasoningFragment } from "./stream-reasoning";
import { emit, snapshot, type CallState, type Controller, type PartKind, type StreamState } from "./stream-state";
import type { ResponsesEcho } from "./to-chat";

function partText(item: MessageOutputItem): string {
  const part = item.content[0];
  return part?.type === "refusal" ? part.refusal : (part?.text ?? "");
}

/** A call's final arguments (or custom input), also for calls whose deltas came after their item closed. */
function settleCall(call: CallState): void {
  if (call.item.type === "function_call") call.item.arguments = call.args;
  else call.item.input = customInput(call.args);
}

function closeCall(state: StreamState, c: Controller, call: CallState, output_index: number, status: ItemStatus): void {
  settleCall(call);
  const { item } = call;
  if (item.type === "function_call") {
    item.status = status;
    emit(state, c, "response.function_call_arguments.done", { item_id: item.id, output_index, name: item.name, arguments: item.arguments });
  } else emit(state, c, "response.custom_tool_call_input.done", { item_id: item.id, output_index, input: item.input });
  emit(state, c, "response.output_item.done", { output_index, item: snapshot(item) });
}

function closeOpen(state: StreamState, c: Controller, status: ItemStatus): void {
  const open = state.open;
  if (!open) return;
  state.open = null;
  const output_index = open.index;
  if (open.kind === "reasoning") return closeReasoning(state, c, open);
  if (open.kind === "call") return closeCall(state, c, open.call, output_index, status);
  const { item } = open;
  item.status = status;
  const text = partText(item);
  const base = { item_id: item.id, output_index, content_index: 0 };
  if (open.part === "refusal") emit(state, c, "response.refusal.done", { ...base, refusal: text });
  else emit(state, c, "response.output_text.done", { ...base, text, logprobs: (item.content[0] as OutputTextPart).logprobs ?? [] });
  emit(state, c, "response.content_part.done", { ...base, part: snapshot(item.content[0]) });
  emit(state, c, "response.output_item.done", { output_index, item: snapshot(item) });
}

/** The open message item with a part of this kind, opened (closing what else is open) when there is none. */
function openMessage(state: StreamState, c: Controller, part: PartKind): Extract<StreamState["open"], { kind: "message" }> {
  const current = state.open;
  if (current?.kind === "message" && current.part === part) return current;
  closeOpen(state, c, "completed");
  const item: MessageOutputItem = { type: "message", id: messageItemId(), role: "assistant", status: "in_progress", content: [] };
  const open = { kind: "message" as const, part, index: state.output.length, item };
  state.output.push(item);
  state.open = open;
  emit(state, c, "response.output_item.added", { output_index: open.index, item: snapshot(item) });
  item.content.push(part === "refusal" ? { type: "refusal", refusal: "" } : textPart("", [], wantsLogprobs(state.echo) ? [] : undefined));
  emit(state, c, "response.content_part.added", {
    item_id: item.id,
    output_index: open.index,
    content_index: 0,
    part: snapshot(item.content[0]),
  });
  return open;
}

function messageDelta(state: StreamState, c: Controller, part: PartKind, delta: string, logprobs: unknown): void {
  const open = openMessage(state, c, part);
  const content = open.item.content[0]!;
  const base = { item_id: open.item.id, output_index: open.index, content_index: 0 };
  if (content.type === "refusal") {
    content.refusal += delta;
    emit(state, c, "response.refusal.delta", { ...base, delta });
  } else {
    const tokens = content.logprobs ? logprobsOf(logprobs) : [];
    content.text += delta;
    content.logprobs?.push(...tokens);
    emit(state, c, "response.output_text.delta", { ...base, delta, logprobs: tokens });
  }
}

/** Citations of the text: added to the open output_text part (opened if needed), one event each. */
function annotationsDelta(state: StreamState, c: Controller, annotations: unknown[]): void {
  const open = openMessage(state, c, "output_text");
  const part = open.item.content[0] as OutputTextPart;
  for (const annotation of annotations) {
    part.annotations.push(annotation);
    emit(state, c, "response.output_text.annotation.added", {
      item_id: open.item.id,
      output_index: open.index,
      content_index: 0,
      annotation_index: part.annotations.length - 1,
      annotation: snapshot(annotation),
    });
  }
}

function toolCallDelta(state: StreamState, c: Controller, delta: NonNullable<ChunkDelta["tool_calls"]>[number]): void {
  let call = state.calls.get(delta.index);
  if (!call) {
    closeOpen(state, c, "completed");
    const chat = { id: delta.id ?? "", type: "function" as const, function: { name: delta.function?.name ?? "", arguments: "" } };
    call = { item: callItem(chat, "in_progress", state.echo), args: "" };
    state.calls.set(delta.index, call);
    state.open = { kind: "call", index: state.output.length, call };
    state.output.push(call.item);
    emit(state, c, "response.output_item.added", { output_index: state.open.index, item: snapshot(call.item) });
  }
  const { item } = call;
  // Some providers send the id or name after the first fragment.
  if (delta.id && !item.call_id) item.call_id = delta.id;
  if (delta.function?.name && !item.name) item.name = delta.function.name;
  const args = delta.function?.arguments;
  if (!args) return;
  call.args += args;
  // Arguments for an item already closed (interleaved calls) are kept for the final response only.
  const open = state.open;
  if (open?.kind !== "call" || open.call !== call) return;
  if (item.type === "function_call") {
    item.arguments = call.args;
    emit(state, c, "response.function_call_arguments.delta", { item_id: item.id, output_index: open.index, delta: args });
    return;
  }
  // A custom tool's input streams as the string the arguments decode to so far.
  const input = partialInput(call.args);
  if (input === null || input.length <= item.input.length) return;
  const more = input.slice(item.input.length);
  item.input = input;
  emit(state, c, "response.custom_tool_call_input.delta", { item_id: item.id, output_index: open.index, delta: more });
}

function onDelta(state: StreamState, c: Controller, event: Extract<PipelineEvent, { type: "delta" }>): void {
  if (event.model) state.model = event.model;
  const { delta } = event;
  for (const fragment of deltaFragments(delta.extra)) reasoningFragment(state, c, fragment, () => closeOpen(state, c, "completed"));
  if (delta.refusal) messageDelta(state, c, "refusal", delta.refusal, null);
  if (delta.content) messageDelta(state, c, "output_text", delta.content, event.logprobs);
  const annotations = responsesAnnotations(delta.extra?.annotations);
  if (annotations.length > 0) annotationsDelta(state, c, annotations);
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
  // Deltas that came after their item closed are in the final response.
  for (const call of state.calls.values()) settleCall(call);
  for (const item of state.reasoning.keys()) finishReasoningItem(state, item);
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
  const open = state.open;
  if (open?.kind === "message") open.item.status = "incomplete";
  else if (open?.kind === "call" && open.call.item.type === "function_call") open.call.item.status = "incomplete";
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
    echo,
    output: [],
    open: null,
    calls: new Map(),
    details: [],
    reasoning: new Map(),
    late: [],
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
      closeLate(state, c);
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
