// Anthropic Messages JSON answer → internal ChatResult: text blocks join into the message content (their
// citations become annotations over each block's span), tool_use blocks become tool_calls (input
// re-serialised as the arguments string), thinking and redacted_thinking blocks become reasoning_details
// with their signatures, and their text `reasoning_content` (the chat convention DeepSeek and LiteLLM use).
import type { ChatResult, ToolCall, UpstreamTarget } from "../types";
import { isRecord } from "../content-parts";
import { reasoningText, type ReasoningDetail } from "../reasoning";
import { UpstreamProtocolError } from "../upstream-errors";
import { citationAnnotations } from "./citations";
import { detailOfBlock } from "./reasoning-blocks";
import { anthropicError, anthropicFinishReason, anthropicUsage, type AnthropicMessageWire } from "./wire";

export function parseAnthropicResponse(json: unknown, target: UpstreamTarget): ChatResult {
  if (!isRecord(json) || !Array.isArray(json.content)) {
    throw new UpstreamProtocolError(anthropicError(json)?.message ?? "Upstream response has no content");
  }
  const wire = json as AnthropicMessageWire;
  let content = "";
  let sawText = false;
  const reasoning: ReasoningDetail[] = [];
  const annotations: unknown[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of wire.content ?? []) {
    if (typeof block !== "object" || block === null) continue;
    if (block.type === "text" && typeof block.text === "string") {
      const start = content.length;
      content += block.text;
      sawText = true;
      annotations.push(...citationAnnotations(block.citations, { start, end: content.length }));
    }
    const detail = detailOfBlock(block);
    if (detail) reasoning.push(detail);
    if (block.type === "tool_use") {
      toolCalls.push({
        id: block.id ?? `toolu_${toolCalls.length}`,
        type: "function",
        function: { name: block.name ?? "", arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const message: ChatResult["choices"][number]["message"] = { role: "assistant", content: sawText ? content : null, refusal: null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning.length > 0) {
    message.reasoning_details = reasoning;
    const text = reasoningText(reasoning);
    if (text !== "") message.reasoning_content = text;
  }
  if (annotations.length > 0) message.annotations = annotations;
  return {
    id: wire.id ?? `msg_${crypto.randomUUID()}`,
    // Anthropic sends no creation time.
    created: Math.floor(Date.now() / 1000),
    model: wire.model ?? target.providerModelId,
    choices: [{ index: 0, message, logprobs: null, finish_reason: anthropicFinishReason(wire.stop_reason, toolCalls.length > 0) }],
    usage: anthropicUsage(wire.usage),
    systemFingerprint: null,
  };
}
