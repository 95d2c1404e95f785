// Responses API Response object → internal ChatResult: output_text parts of message items join into
// the content, refusal parts into the refusal, function_call items become tool_calls (id = call_id,
// the id the next turn's function_call_output must quote), reasoning items become reasoning_details
// (reasoning.ts) and output_text annotations the message's annotations; hosted-tool items have no
// place in the chat shape and are left out.
import type { ChatResult, ToolCall, UpstreamTarget } from "../types";
import { isRecord } from "../content-parts";
import { UpstreamProtocolError } from "../upstream-errors";
import { reasoningText, type ReasoningDetail } from "../reasoning";
import { chatAnnotation } from "./annotations";
import { itemDetails } from "./reasoning";
import { responsesError, responsesFinishReason, responsesUsage, type ResponseObjectWire } from "./wire";

export function parseResponsesResponse(json: unknown, target: UpstreamTarget): ChatResult {
  if (!isRecord(json) || !Array.isArray(json.output)) {
    throw new UpstreamProtocolError(responsesError(json)?.message ?? "Upstream response has no output");
  }
  const wire = json as ResponseObjectWire;
  if (wire.status === "failed") throw new UpstreamProtocolError(wire.error?.message ?? "Upstream response failed");
  let content: string | null = null;
  const refusals: string[] = [];
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningDetail[] = [];
  const annotations: unknown[] = [];
  for (const item of wire.output ?? []) {
    if (item.type === "reasoning") reasoning.push(...itemDetails(item));
    if (item.type === "message") {
      for (const part of item.content ?? []) {
        if (part.type === "output_text" && typeof part.text === "string") {
          const offset = content?.length ?? 0;
          for (const a of part.annotations ?? []) annotations.push(chatAnnotation(a, offset));
          content = (content ?? "") + part.text;
        }
        if (part.type === "refusal" && typeof part.refusal === "string") refusals.push(part.refusal);
      }
    }
    if (item.type === "function_call") {
      toolCalls.push({
        id: item.call_id ?? item.id ?? `call_${toolCalls.length}`,
        type: "function",
        function: { name: item.name ?? "", arguments: item.arguments ?? "" },
      });
    }
  }
  const message: ChatResult["choices"][number]["message"] = {
    role: "assistant",
    content,
    refusal: refusals.length > 0 ? refusals.join("") : null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning.length > 0) {
    message.reasoning_details = reasoning;
    const text = reasoningText(reasoning);
    if (text !== "") message.reasoning_content = text;
  }
  if (annotations.length > 0) message.annotations = annotations;
  return {
    id: wire.id ?? `resp_${crypto.randomUUID()}`,
    created: typeof wire.created_at === "number" ? Math.floor(wire.created_at) : Math.floor(Date.now() / 1000),
    model: wire.model ?? target.providerModelId,
    choices: [{ index: 0, message, logprobs: null, finish_reason: responsesFinishReason(wire, toolCalls.length > 0) }],
    usage: responsesUsage(wire.usage),
    systemFingerprint: null,
  };
}
