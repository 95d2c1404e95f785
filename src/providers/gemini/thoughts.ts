// Gemini thoughts and thought signatures ↔ the chat model's reasoning_details (convention in
// ../reasoning.ts): a thought part is a reasoning.text entry (its signature kept on it), a signature on
// a functionCall part is a reasoning.encrypted entry whose id is that tool call's id, and a signature
// on an answer text part is a reasoning.encrypted entry without id. A model turn is rebuilt with each
// signature on the part it came on, as Gemini requires.
import type { ChatMessage } from "../types";
import { GEMINI_FORMAT, ofFormat, type ReasoningDetail } from "../reasoning";
import type { GeminiContent, GeminiPart } from "./contents";

export function thoughtEntry(text: string, signature: string | undefined): ReasoningDetail {
  const entry: ReasoningDetail = { type: "reasoning.text", text, format: GEMINI_FORMAT };
  if (signature) entry.signature = signature;
  return entry;
}

/** A signature outside a thought part: on the tool call `callId`, or (no id) on the answer's text. */
export function signatureEntry(data: string, callId?: string): ReasoningDetail {
  return callId === undefined
    ? { type: "reasoning.encrypted", data, format: GEMINI_FORMAT }
    : { type: "reasoning.encrypted", data, id: callId, format: GEMINI_FORMAT };
}

/**
 * An assistant message's parts with its Gemini reasoning put back: thought parts first (as the model
 * wrote them), each call's signature on its functionCall part, the first id-less signature on the first
 * answer text part (further ones, or one with no text to sit on, as empty text parts at the end, where
 * Gemini puts a signature that closes a turn).
 * Other families' entries are not Gemini's to read and are left out.
 */
export function modelParts(message: ChatMessage, content: GeminiPart[], calls: { id: string; part: GeminiPart }[]): GeminiPart[] {
  const entries = ofFormat(message.reasoning_details, GEMINI_FORMAT);
  if (entries.length === 0) return [...content, ...calls.map((c) => c.part)];
  const thoughts: GeminiPart[] = [];
  const byCall = new Map<string, string>();
  const loose: string[] = [];
  for (const entry of entries) {
    if (entry.type === "reasoning.text") {
      // An empty unsigned thought carries nothing Gemini could read back.
      if (entry.text === "" && !entry.signature) continue;
      thoughts.push(
        entry.signature ? { text: entry.text, thought: true, thoughtSignature: entry.signature } : { text: entry.text, thought: true },
      );
    } else if (entry.type === "reasoning.encrypted") {
      if (entry.id === undefined) loose.push(entry.data);
      else if (!byCall.has(entry.id)) byCall.set(entry.id, entry.data);
    }
  }
  const answer = content.map((part) => ({ ...part }));
  const first = answer.find((part) => typeof part.text === "string");
  if (first && loose.length > 0) first.thoughtSignature = loose.shift();
  const trailing = loose.map((data) => ({ text: "", thoughtSignature: data }));
  const signedCalls = calls.map(({ id, part }) => {
    const data = byCall.get(id);
    return data === undefined ? part : { ...part, thoughtSignature: data };
  });
  return [...thoughts, ...answer, ...signedCalls, ...trailing];
}

/**
 * Google's documented placeholder for a function call Gemini did not sign (history from another model,
 * or a client that dropped reasoning_details): Gemini 3 refuses a current-turn step whose first
 * functionCall part has no signature.
 */
export const UNSIGNED_CALL = "skip_thought_signature_validator";

/** Gives the first functionCall of each model step since the last user prompt a signature, if it lacks one. */
export function signCurrentTurn(contents: GeminiContent[]): void {
  let start = 0;
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i]!;
    // A user prompt (text) starts the turn; tool results, and the media they carry, do not.
    if (c.role === "user" && c.parts.some((p) => typeof p.text === "string")) {
      start = i + 1;
      break;
    }
  }
  for (const content of contents.slice(start)) {
    if (content.role !== "model") continue;
    const call = content.parts.find((p) => p.functionCall !== undefined);
    if (call && typeof call.thoughtSignature !== "string") call.thoughtSignature = UNSIGNED_CALL;
  }
}
