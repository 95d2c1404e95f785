// PipelineResult → Anthropic's Message object, with routing_metadata as an extra field (the
// Anthropic SDK keeps unknown fields). Shared helpers are used by the stream encoder too.
import { randomBase62 } from "../../platform/ids";
import type { ReasoningDetail } from "../../providers/reasoning";
import type { ChatChoice, FinishReason, Usage } from "../../providers/types";
import type { PipelineResult, RoutingMetadata } from "../types";
import { citationsOf } from "./citations";
import { reasoningBlocks, type ReasoningContent } from "./reasoning-blocks";

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
  content: (ReasoningContent | TextContent | ToolUseContent)[];
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

/** A message's reasoning entries; a bare reasoning_content (DeepSeek's) is one unsigned entry. */
export function reasoningOf(message: ChatChoice["message"] | undefined): ReasoningDetail[] {
  if (message?.reasoning_details && message.reasoning_details.length > 0) return message.reasoning_details;
  return message?.reasoning_content ? [{ type: "reasoning.text", text: message.reasoning_content, format: "unknown" }] : [];
}

export function renderMessage(pipeline: PipelineResult, id: string = anthropicMessageId()): AnthropicMessage {
  const { result, routing } = pipeline;
  const choice = result.choices[0];
  // Reasoning opens the content, as Anthropic orders it (the chat model has no interleaving).
  const content: AnthropicMessage["content"] = reasoningBlocks(reasoningOf(choice?.message));
  const text = choice?.message.refusal || choice?.message.content;
  if (text) {
    const block: TextContent = { type: "text", text };
    const citations = citationsOf(choice?.message.annotations, choice?.message.content ?? "");
    if (citations.length > 0) block.citations = citations;
    content.push(block);
  }
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
