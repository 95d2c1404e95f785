// PipelineResult → Anthropic's Message object, with routing_metadata as an extra field (the
// Anthropic SDK keeps unknown fields). Shared helpers are used by the stream encoder too.
import { randomBase62 } from "../../platform/ids";
import type { FinishReason, Usage } from "../../providers/types";
import type { PipelineResult, RoutingMetadata } from "../types";

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal";

export interface TextContent {
  type: "text";
  text: string;
  /** Absent when the answer cites nothing: `null` there is refused by `@ai-sdk/anthropic` (expects an array). */
  citations?: unknown[];
}
export interface ToolUseContent {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface AnthropicMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: (TextContent | ToolUseContent)[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
  routing_metadata?: RoutingMetadata;
}

export const anthropicMessageId = (): string => `msg_${randomBase62(24)}`;

/**
 * The chat model cannot tell which stop sequence matched, so a natural stop is always `end_turn`
 * and `stop_sequence` stays null.
 */
export function stopReason(finish: FinishReason | null): StopReason {
  if (finish === "length") return "max_tokens";
  if (finish === "tool_calls" || finish === "function_call") return "tool_use";
  if (finish === "content_filter") return "refusal";
  return "end_turn";
}

/** Anthropic counts cache reads and writes apart from `input_tokens`; ours include them. */
export function anthropicUsage(u: Usage): AnthropicUsage {
  return {
    input_tokens: Math.max(0, u.inputTokens - u.cachedTokens - u.cacheWriteTokens),
    output_tokens: u.outputTokens,
    cache_creation_input_tokens: u.cacheWriteTokens,
    cache_read_input_tokens: u.cachedTokens,
  };
}

/** Tool arguments as the `input` object; malformed JSON from a model becomes `{}`. */
export function parseToolInput(args: string): unknown {
  if (args.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(args);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

export function renderMessage(pipeline: PipelineResult, id: string = anthropicMessageId()): AnthropicMessage {
  const { result, routing } = pipeline;
  const choice = result.choices[0];
  const content: AnthropicMessage["content"] = [];
  const text = choice?.message.refusal || choice?.message.content;
  if (text) content.push({ type: "text", text });
  for (const call of choice?.message.tool_calls ?? []) {
    content.push({ type: "tool_use", id: call.id, name: call.function.name, input: parseToolInput(call.function.arguments) });
  }
  return {
    id,
    type: "message",
    role: "assistant",
    model: result.model,
    content,
    stop_reason: stopReason(choice?.finish_reason ?? null),
    stop_sequence: null,
    usage: anthropicUsage(result.usage),
    routing_metadata: routing,
  };
}
