// Gemini generateContent JSON → internal ChatResult. Each candidate is one choice; text parts join
// into the content (thought summaries left out); functionCall parts become tool calls with
// synthesized ids. A prompt blocked before generation yields one empty content_filter choice.
import type { ChatChoice, ChatResult, ToolCall, UpstreamTarget } from "../types";
import { isRecord } from "../content-parts";
import { UpstreamProtocolError } from "../upstream-errors";
import {
  geminiError,
  geminiFinishReason,
  geminiUsage,
  idPrefix,
  toolCallId,
  type GeminiCandidateWire,
  type GeminiResponseWire,
} from "./wire";

export function parseGeminiResponse(json: unknown, target: UpstreamTarget): ChatResult {
  if (!isRecord(json) || (json.candidates === undefined && json.promptFeedback === undefined)) {
    throw new UpstreamProtocolError(geminiError(json)?.message ?? "Upstream response has no candidates");
  }
  const wire = json as GeminiResponseWire;
  const prefix = idPrefix(wire.responseId);
  const candidates = wire.candidates ?? [];
  const choices = candidates.length > 0 ? candidates.map((c, position) => toChoice(c, position, prefix)) : [blockedChoice()];
  return {
    id: wire.responseId ?? `gen-${prefix}`,
    created: Math.floor(Date.now() / 1000),
    model: wire.modelVersion ?? target.providerModelId,
    choices,
    usage: geminiUsage(wire.usageMetadata),
    systemFingerprint: null,
  };
}

function toChoice(candidate: GeminiCandidateWire, position: number, prefix: string): ChatChoice {
  const index = candidate.index ?? position;
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (typeof part.text === "string" && part.thought !== true) texts.push(part.text);
    if (part.functionCall) {
      toolCalls.push({
        id: part.functionCall.id ?? toolCallId(prefix, index, toolCalls.length),
        type: "function",
        function: { name: part.functionCall.name ?? "", arguments: JSON.stringify(part.functionCall.args ?? {}) },
      });
    }
  }
  const choice: ChatChoice = {
    index,
    message: { role: "assistant", content: texts.length > 0 ? texts.join("") : null, refusal: null },
    logprobs: null,
    finish_reason: geminiFinishReason(candidate.finishReason, toolCalls.length > 0),
  };
  if (toolCalls.length > 0) choice.message.tool_calls = toolCalls;
  return choice;
}

function blockedChoice(): ChatChoice {
  return { index: 0, message: { role: "assistant", content: null, refusal: null }, logprobs: null, finish_reason: "content_filter" };
}
