// PipelineResult → the Responses API `response` object (gateway-api.md §2.6), with the fields the
// official openai SDK's `Response` type declares. The stream encoder builds its snapshots with the
// same helpers, so a streamed response's terminal event equals what the JSON route would answer.
import { randomBase62 } from "../../platform/ids";
import type { ReasoningDetail } from "../../providers/reasoning";
import type { ChatChoice, ChatResult, FinishReason, ToolCall, Usage } from "../../providers/types";
import type { PipelineResult, RoutingMetadata } from "../types";
import { responsesAnnotations } from "./annotations";
import { customInput } from "./custom-tools";
import { reasoningItems, type ReasoningOutputItem } from "./reasoning-items";
import { LOGPROBS_INCLUDE, type ResponsesEcho } from "./to-chat";

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";
export type ItemStatus = "in_progress" | "completed" | "incomplete";

export const responseId = (): string => `resp_${randomBase62(24)}`;
export const messageItemId = (): string => `msg_${randomBase62(24)}`;
export const functionCallItemId = (): string => `fc_${randomBase62(24)}`;
export const customToolCallItemId = (): string => `ctc_${randomBase62(24)}`;

export const ENCRYPTED_INCLUDE = "reasoning.encrypted_content";

export interface OutputTextPart {
  type: "output_text";
  text: string;
  annotations: unknown[];
  /** Only when the client asked for them (include "message.output_text.logprobs"). */
  logprobs?: unknown[];
}
export interface RefusalPart {
  type: "refusal";
  refusal: string;
}
export interface MessageOutputItem {
  type: "message";
  id: string;
  role: "assistant";
  status: ItemStatus;
  content: (OutputTextPart | RefusalPart)[];
}
export interface FunctionCallOutputItem {
  type: "function_call";
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ItemStatus;
}
/** A call to a custom tool (sent to the provider as a function taking `input`, custom-tools.ts). */
export interface CustomToolCallOutputItem {
  type: "custom_tool_call";
  id: string;
  call_id: string;
  name: string;
  input: string;
}
export type OutputItem = MessageOutputItem | FunctionCallOutputItem | CustomToolCallOutputItem | ReasoningOutputItem;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponseObject {
  id: string;
  object: "response";
  created_at: number;
  completed_at: number | null;
  status: ResponseStatus;
  background: false;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: OutputItem[];
  output_text: string;
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: ResponsesEcho["reasoning"];
  store: boolean;
  temperature: number | null;
  text: ResponsesEcho["text"];
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  truncation: ResponsesEcho["truncation"];
  usage: ResponsesUsage | null;
  user: string | null;
  safety_identifier?: string;
  metadata: Record<string, string>;
  routing_metadata?: RoutingMetadata;
}

export function responsesUsage(u: Usage): ResponsesUsage {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedTokens, cache_write_tokens: u.cacheWriteTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

/** An output_text part; `logprobs` is there when the client asked for them. */
export function textPart(text: string, annotations: unknown[], logprobs: unknown[] | undefined): OutputTextPart {
  const part: OutputTextPart = { type: "output_text", text, annotations };
  if (logprobs) part.logprobs = logprobs;
  return part;
}

export function messageItem(id: string, text: string, status: ItemStatus): MessageOutputItem {
  return { type: "message", id, role: "assistant", status, content: [textPart(text, [], undefined)] };
}

export function functionCallItem(id: string, call: ToolCall, status: ItemStatus): FunctionCallOutputItem {
  return { type: "function_call", id, call_id: call.id, name: call.function.name, arguments: call.function.arguments, status };
}

/** A chat tool call as its output item: a custom_tool_call when it calls a custom tool. */
export function callItem(call: ToolCall, status: ItemStatus, echo: ResponsesEcho): FunctionCallOutputItem | CustomToolCallOutputItem {
  if (!echo.customTools.includes(call.function.name)) return functionCallItem(functionCallItemId(), call, status);
  return {
    type: "custom_tool_call",
    id: customToolCallItemId(),
    call_id: call.id,
    name: call.function.name,
    input: customInput(call.function.arguments),
  };
}

/** A message's reasoning entries; a bare reasoning_content is one entry of no provider's family. */
export function messageReasoning(message: ChatChoice["message"]): ReasoningDetail[] {
  if (message.reasoning_details && message.reasoning_details.length > 0) return message.reasoning_details;
  if (message.reasoning_content) return [{ type: "reasoning.text", text: message.reasoning_content, format: "unknown" }];
  return [];
}

export const wantsEncrypted = (echo: ResponsesEcho): boolean => echo.include.includes(ENCRYPTED_INCLUDE);
export const wantsLogprobs = (echo: ResponsesEcho): boolean => echo.include.includes(LOGPROBS_INCLUDE);

/** `output_text` is the concatenation of every output_text part, as the SDK computes it. */
export function outputText(output: OutputItem[]): string {
  let text = "";
  for (const item of output) {
    if (item.type !== "message") continue;
    for (const part of item.content) if (part.type === "output_text") text += part.text;
  }
  return text;
}

/** Status and incomplete_details for a finish reason: a cut by the token limit is not "completed". */
export function finishStatus(finish: FinishReason | null): Pick<ResponseObject, "status" | "incomplete_details"> {
  if (finish === "length") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (finish === "content_filter") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

export interface ResponseFields {
  id: string;
  createdAt: number;
  model: string;
  status: ResponseStatus;
  output: OutputItem[];
  usage: Usage | null;
  error?: ResponseObject["error"];
  incompleteDetails?: ResponseObject["incomplete_details"];
  routing?: RoutingMetadata;
  /** The stored response this one continues; else the echo's. */
  previousResponseId?: string;
}

/** The whole response object, request echo included. */
export function buildResponse(f: ResponseFields, echo: ResponsesEcho): ResponseObject {
  const finished = f.status === "completed" || f.status === "incomplete";
  const response: ResponseObject = {
    id: f.id,
    object: "response",
    created_at: f.createdAt,
    completed_at: finished ? Math.floor(Date.now() / 1000) : null,
    status: f.status,
    background: false,
    error: f.error ?? null,
    incomplete_details: f.incompleteDetails ?? null,
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    model: f.model,
    output: f.output,
    output_text: outputText(f.output),
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: f.previousResponseId ?? echo.previousResponseId ?? null,
    reasoning: echo.reasoning,
    store: echo.store,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: echo.top_p,
    truncation: echo.truncation,
    usage: f.usage ? responsesUsage(f.usage) : null,
    user: echo.user,
    metadata: echo.metadata,
  };
  if (echo.safety_identifier !== undefined) response.safety_identifier = echo.safety_identifier;
  if (f.routing) response.routing_metadata = f.routing;
  return response;
}

/** Reasoning items first (the chat model keeps reasoning before the answer), then the message, then the calls. */
function outputFromResult(choice: ChatChoice | undefined, itemStatus: ItemStatus, echo: ResponsesEcho): OutputItem[] {
  if (!choice) return [];
  const { message } = choice;
  const output: OutputItem[] = reasoningItems(messageReasoning(message), wantsEncrypted(echo));
  if (message.refusal) {
    output.push({
      type: "message",
      id: messageItemId(),
      role: "assistant",
      status: itemStatus,
      content: [{ type: "refusal", refusal: message.refusal }],
    });
  } else if (message.content) {
    const logprobs = wantsLogprobs(echo) ? logprobsOf(choice.logprobs) : undefined;
    const part = textPart(message.content, responsesAnnotations(message.annotations), logprobs);
    output.push({ type: "message", id: messageItemId(), role: "assistant", status: itemStatus, content: [part] });
  }
  for (const call of message.tool_calls ?? []) output.push(callItem(call, itemStatus, echo));
  return output;
}

/** Chat's per-token logprobs (`logprobs.content`) are Responses' output_text logprobs, entry for entry. */
export function logprobsOf(logprobs: unknown): unknown[] {
  const content = (logprobs as { content?: unknown } | null | undefined)?.content;
  return Array.isArray(content) ? content : [];
}

/** A completed non-streaming call as a Response object. */
export function renderResponse(pipeline: PipelineResult, echo: ResponsesEcho, id: string = responseId()): ResponseObject {
  const { result, routing } = pipeline;
  const { status, incomplete_details } = finishStatus(result.choices[0]?.finish_reason ?? null);
  const output = outputFromResult(result.choices[0], status === "completed" ? "completed" : "incomplete", echo);
  return buildResponse(
    {
      id,
      createdAt: result.created,
      model: result.model,
      status,
      output,
      usage: result.usage,
      incompleteDetails: incomplete_details,
      routing,
    },
    echo,
  );
}
