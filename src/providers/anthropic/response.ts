// Anthropic Messages JSON answer → internal ChatResult: text blocks join into the message content,
// tool_use blocks become tool_calls (input re-serialised as the arguments string), thinking blocks join
// into `reasoning_content` (the chat convention DeepSeek and LiteLLM use); their signatures are not kept yet.
import type { ChatResult, ToolCall, UpstreamTarget } from "../types";
import { isRecord } from "../content-parts";
import { UpstreamProtocolError } from "../upstream-errors";
import { anthropicError, anthropicFinishReason, anthropicUsage, type AnthropicMessageWire } from "./wire";

export function parseAnthropicResponse(json: unknown, target: UpstreamTarget): ChatResult {
  if (!isRecord(json) || !Array.isArray(json.content)) {
    throw new UpstreamProtocolError(anthropicError(json)?.message ?? "Upstream response has no content");
  }
  const wire = json as AnthropicMessageWire;
  const texts: string[] = [];
  const thinking: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of wire.content ?? []) {
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    const thought = (block as { thinking?: unknown }).thinking;
    if (block.type === "thinking" && typeof thought === "string") thinking.push(thought);
    if (block.type === "tool_use") {
      toolCalls.push({
        id: block.id ?? `toolu_${toolCalls.length}`,
        type: "function",
        function: { name: block.name ?? "", arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const message: ChatResult["choices"][number]["message"] = {
    role: "assistant",
    content: texts.length > 0 ? texts.join("") : null,
    refusal: null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (thinking.length > 0) message.reasoning_content = thinking.join("");
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
