// Messages thinking blocks ↔ the chat model's reasoning_details (issue 55, conventions 1 and 5). A
// thinking or redacted_thinking block is Anthropic's own state; any other family's entries (Gemini
// thoughts and signatures, Responses items, DeepSeek's unsigned text) travel as one thinking block per
// run whose signature is a `swy1.` token, so that the client sends them back and they are restored as
// they were.
import { ANTHROPIC_FORMAT, decodeCarried, encodeCarried, reasoningText, type ReasoningDetail } from "../../providers/reasoning";
import { detailOfBlock } from "../../providers/anthropic/reasoning-blocks";

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  signature: string;
}
export interface RedactedThinkingContent {
  type: "redacted_thinking";
  data: string;
}
export type ReasoningContent = ThinkingContent | RedactedThinkingContent;

/** A request block of an earlier assistant turn. */
export type ThinkingParam = { type: "thinking"; thinking: string; signature?: string } | { type: "redacted_thinking"; data: string };

/** The entries one thinking block stands for: a carried token's, else one Anthropic entry. */
export function thinkingEntries(block: ThinkingParam): ReasoningDetail[] {
  const carried = block.type === "thinking" && block.signature !== undefined ? decodeCarried(block.signature) : null;
  if (carried !== null) return carried;
  // Anthropic's own block: read as the Anthropic wire reads it in an answer.
  const entry = detailOfBlock(block);
  return entry ? [entry] : [];
}

/**
 * Whether an entry is exactly what an Anthropic block says (its own family, no id, a shape the block has);
 * anything else is carried, so that nothing of it is lost.
 */
export function isNativeEntry(d: ReasoningDetail): boolean {
  return d.format === ANTHROPIC_FORMAT && d.id === undefined && d.type !== "reasoning.summary";
}

/** An Anthropic entry as its block. */
export function nativeBlock(d: ReasoningDetail): ReasoningContent {
  if (d.type === "reasoning.encrypted") return { type: "redacted_thinking", data: d.data };
  return {
    type: "thinking",
    thinking: d.type === "reasoning.text" ? d.text : d.summary,
    signature: d.type === "reasoning.text" ? (d.signature ?? "") : "",
  };
}

/** A run of other families' entries as one thinking block. */
export function carriedBlock(run: readonly ReasoningDetail[]): ThinkingContent {
  return { type: "thinking", thinking: reasoningText(run), signature: encodeCarried(run) };
}

/** A message's reasoning as the blocks that open its content, in order. */
export function reasoningBlocks(details: readonly ReasoningDetail[]): ReasoningContent[] {
  const out: ReasoningContent[] = [];
  let run: ReasoningDetail[] = [];
  for (const d of details) {
    if (!isNativeEntry(d)) {
      run.push(d);
      continue;
    }
    if (run.length > 0) out.push(carriedBlock(run));
    run = [];
    out.push(nativeBlock(d));
  }
  if (run.length > 0) out.push(carriedBlock(run));
  return out;
}
