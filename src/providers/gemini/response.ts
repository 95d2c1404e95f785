// Gemini generateContent JSON → internal ChatResult. Each candidate is one choice; text parts join
// into the content; thought parts and thought signatures become reasoning_details (one entry per part,
// a function call's signature under that call's id); functionCall parts become tool calls with
// synthesized ids; grounding and citations become annotations. A prompt blocked before generation
// yields one empty content_filter choice.
import type { ChatChoice, ChatResult, ToolCall, UpstreamTarget } from "../types";
import { isRecord } from "../content-parts";
import { reasoningText, type ReasoningDetail } from "../reasoning";
import { UpstreamProtocolError } from "../upstream-errors";
import { citationsOf } from "./citations";
import { signatureEntry, thoughtEntry } from "./thoughts";
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
  let text: string | null = null;
  let bytes = 0;
  const partStarts = new Map<number, number>();
  const toolCalls: ToolCall[] = [];
  const details: ReasoningDetail[] = [];
  let unsignedCall: string | undefined;
  (candidate.content?.parts ?? []).forEach((part, i) => {
    const signature = part.thoughtSignature || undefined;
    if (part.thought === true) {
      details.push(thoughtEntry(part.text ?? "", signature));
    } else if (part.functionCall) {
      const id = part.functionCall.id ?? toolCallId(prefix, index, toolCalls.length);
      toolCalls.push({
        id,
        type: "function",
        function: { name: part.functionCall.name ?? "", arguments: JSON.stringify(part.functionCall.args ?? {}) },
      });
      if (signature) details.push(signatureEntry(signature, id));
      if (toolCalls.length === 1) unsignedCall = signature ? undefined : id;
      else if (signature) unsignedCall = undefined;
    } else {
      if (typeof part.text === "string") {
        partStarts.set(i, bytes);
        text = (text ?? "") + part.text;
        bytes += Buffer.byteLength(part.text);
      }
      // A signature on an empty part after unsigned calls closes their turn: it is the first call's (stream-thoughts.ts).
      if (signature) details.push(signatureEntry(signature, part.text ? undefined : unsignedCall));
      if (signature && !part.text) unsignedCall = undefined;
    }
  });
  const choice: ChatChoice = {
    index,
    message: { role: "assistant", content: text, refusal: null },
    logprobs: null,
    finish_reason: geminiFinishReason(candidate.finishReason, toolCalls.length > 0),
  };
  if (toolCalls.length > 0) choice.message.tool_calls = toolCalls;
  if (details.length > 0) {
    choice.message.reasoning_details = details;
    const shown = reasoningText(details);
    if (shown !== "") choice.message.reasoning_content = shown;
  }
  const annotations = citationsOf(candidate, text ?? "", partStarts);
  if (annotations.length > 0) choice.message.annotations = annotations;
  return choice;
}

function blockedChoice(): ChatChoice {
  return { index: 0, message: { role: "assistant", content: null, refusal: null }, logprobs: null, finish_reason: "content_filter" };
}
