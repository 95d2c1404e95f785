// OpenAI-compatible JSON response → internal ChatResult (usage normalised, absent fields defaulted
// to what OpenAI's schema requires: refusal and logprobs present as null). A message's reasoning, in
// OpenRouter's reasoning_details or as DeepSeek's reasoning_content / OpenRouter's reasoning text,
// becomes both fields of the chat model (providers/reasoning.ts); annotations are kept as they came.
import type { ChatChoice, ChatResult, FinishReason, ToolCall, UpstreamTarget } from "../types";
import { isRecord } from "../content-parts";
import { UpstreamProtocolError } from "../upstream-errors";
import { readDetails, reasoningText, type ReasoningDetail } from "../reasoning";
import {
  openAIErrorMessage,
  openAIUsage,
  type OpenAIChoiceWire,
  type OpenAIMessageWire,
  type OpenAIResponseWire,
  type OpenAIToolCallWire,
} from "./wire";

const FINISH_REASONS: readonly FinishReason[] = ["stop", "length", "tool_calls", "content_filter", "function_call"];

export function openAIFinishReason(value: unknown): FinishReason | null {
  if (value === null || value === undefined) return null;
  return FINISH_REASONS.includes(value as FinishReason) ? (value as FinishReason) : "stop";
}

export function parseOpenAIResponse(json: unknown, target: UpstreamTarget): ChatResult {
  if (!isRecord(json) || !Array.isArray(json.choices)) {
    throw new UpstreamProtocolError(openAIErrorMessage(json) ?? "Upstream response has no choices");
  }
  const wire = json as OpenAIResponseWire;
  return {
    id: wire.id ?? `chatcmpl-${crypto.randomUUID()}`,
    created: typeof wire.created === "number" ? wire.created : Math.floor(Date.now() / 1000),
    model: wire.model ?? target.providerModelId,
    choices: (wire.choices ?? []).map(toChoice),
    usage: openAIUsage(wire.usage),
    systemFingerprint: wire.system_fingerprint ?? null,
  };
}

function toChoice(choice: OpenAIChoiceWire, position: number): ChatChoice {
  const message = choice.message ?? {};
  const toolCalls = (message.tool_calls ?? []).map(toToolCall);
  const out: ChatChoice = {
    index: choice.index ?? position,
    message: { role: "assistant", content: message.content ?? null, refusal: message.refusal ?? null },
    logprobs: choice.logprobs ?? null,
    finish_reason: openAIFinishReason(choice.finish_reason) ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
  };
  if (toolCalls.length > 0) out.message.tool_calls = toolCalls;
  const reasoning = reasoningOf(message);
  if (reasoning.length > 0) {
    out.message.reasoning_details = reasoning;
    const text = reasoningText(reasoning);
    if (text !== "") out.message.reasoning_content = text;
  }
  if (Array.isArray(message.annotations) && message.annotations.length > 0) out.message.annotations = message.annotations;
  return out;
}

function reasoningOf(message: OpenAIMessageWire): ReasoningDetail[] {
  const details = readDetails(message.reasoning_details);
  if (details.length > 0) return details;
  const text = typeof message.reasoning_content === "string" ? message.reasoning_content : message.reasoning;
  return typeof text === "string" && text !== "" ? [{ type: "reasoning.text", text, format: "unknown" }] : [];
}

function toToolCall(call: OpenAIToolCallWire, position: number): ToolCall {
  return {
    id: call.id ?? `call_${position}`,
    type: "function",
    function: { name: call.function?.name ?? "", arguments: call.function?.arguments ?? "" },
  };
}
