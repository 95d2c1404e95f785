// PipelineResult → the Responses API `response` object (gateway-api.md §2.6), with the fields the
// official openai SDK's `Response` type declares. The stream encoder builds its snapshots with the
// same helpers, so a streamed response's terminal event equals what the JSON route would answer.
import { randomBase62 } from "../../platform/ids";
import type { ChatResult, FinishReason, ToolCall, Usage } from "../../providers/types";
import type { PipelineResult, RoutingMetadata } from "../types";
import type { ResponsesEcho } from "./to-chat";

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";
export type ItemStatus = "in_progress" | "completed" | "incomplete";

export const responseId = (): string => `resp_${randomBase62(24)}`;
export const messageItemId = (): string => `msg_${randomBase62(24)}`;
export const functionCallItemId = (): string => `fc_${randomBase62(24)}`;

export interface OutputTextPart {
  type: "output_text";
  text: string;
  annotations: unknown[];
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
export type OutputItem = MessageOutputItem | FunctionCallOutputItem;

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
  previous_response_id: null;
  reasoning: ResponsesEcho["reasoning"];
  store: boolean;
  temperature: number | null;
  text: ResponsesEcho["text"];
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  truncation: "disabled";
  usage: ResponsesUsage | null;
  user: string | null;
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

export function messageItem(id: string, text: string, status: ItemStatus): MessageOutputItem {
  return { type: "message", id, role: "assistant", status, content: [{ type: "output_text", text, annotations: [] }] };
}

export function functionCallItem(id: string, call: ToolCall, status: ItemStatus): FunctionCallOutputItem {
  return { type: "function_call", id, call_id: call.id, name: call.function.name, arguments: call.function.arguments, status };
}

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
    previous_response_id: null,
    reasoning: echo.reasoning,
    store: echo.store,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: echo.top_p,
    truncation: "disabled",
    usage: f.usage ? responsesUsage(f.usage) : null,
    user: echo.user,
    metadata: echo.metadata,
  };
  if (f.routing) response.routing_metadata = f.routing;
  return response;
}

function outputFromResult(result: ChatResult, itemStatus: ItemStatus): OutputItem[] {
  const message = result.choices[0]?.message;
  if (!message) return [];
  const output: OutputItem[] = [];
  if (message.refusal) {
    output.push({
      type: "message",
      id: messageItemId(),
      role: "assistant",
      status: itemStatus,
      content: [{ type: "refusal", refusal: message.refusal }],
    });
  } else if (message.content) {
    output.push(messageItem(messageItemId(), message.content, itemStatus));
  }
  for (const call of message.tool_calls ?? []) output.push(functionCallItem(functionCallItemId(), call, itemStatus));
  return output;
}

/** A completed non-streaming call as a Response object. */
export function renderResponse(pipeline: PipelineResult, echo: ResponsesEcho, id: string = responseId()): ResponseObject {
  const { result, routing } = pipeline;
  const { status, incomplete_details } = finishStatus(result.choices[0]?.finish_reason ?? null);
  const output = outputFromResult(result, status === "completed" ? "completed" : "incomplete");
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
