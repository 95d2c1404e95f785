// Anthropic thinking / redacted_thinking blocks ↔ the chat model's reasoning_details (reasoning.ts).
// A thinking block's signature, and a redacted block's data, are Anthropic's proof that the thinking is
// its own: they go back exactly as they came, and only entries tagged with Anthropic's format go back.
import { ANTHROPIC_FORMAT, ofFormat, type ReasoningDetail } from "../reasoning";
import type { AnthropicBlock, AnthropicTurn } from "./messages";
import type { AnthropicContentBlockWire } from "./wire";

/**
 * An assistant message's Anthropic entries as the blocks that start its turn. A text entry without a
 * signature cannot be verified by Anthropic (it would refuse the block), so it is left out.
 */
export function thinkingBlocks(details: readonly ReasoningDetail[] | undefined): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [];
  for (const d of ofFormat(details, ANTHROPIC_FORMAT)) {
    if (d.type === "reasoning.text" && d.signature !== undefined)
      blocks.push({ type: "thinking", thinking: d.text, signature: d.signature });
    else if (d.type === "reasoning.encrypted") blocks.push({ type: "redacted_thinking", data: d.data });
  }
  return blocks;
}

/** An answer's thinking or redacted_thinking block as its reasoning entry; null for any other block. */
export function detailOfBlock(block: AnthropicContentBlockWire): ReasoningDetail | null {
  if (block.type === "thinking" && typeof block.thinking === "string") {
    const detail: ReasoningDetail = { type: "reasoning.text", text: block.thinking, format: ANTHROPIC_FORMAT };
    if (typeof block.signature === "string" && block.signature !== "") detail.signature = block.signature;
    return detail;
  }
  if (block.type === "redacted_thinking" && typeof block.data === "string")
    return { type: "reasoning.encrypted", data: block.data, format: ANTHROPIC_FORMAT };
  return null;
}

const isThinking = (block: AnthropicBlock | undefined) => block?.type === "thinking" || block?.type === "redacted_thinking";

/**
 * Whether Anthropic would refuse thinking for these turns: with thinking on, the assistant turn that opens
 * the tool-use loop in progress (the assistant turns after the last user turn that answers no tool call)
 * must start with a thinking block. Turns that came from another provider have none to give.
 */
export function loopLacksThinking(turns: readonly AnthropicTurn[]): boolean {
  let start = turns.length;
  while (start > 0) {
    const turn = turns[start - 1] as AnthropicTurn;
    if (turn.role === "user" && !turn.content.some((b) => b.type === "tool_result")) break;
    start--;
  }
  const loop = turns.slice(start).filter((t) => t.role === "assistant");
  if (!loop.some((t) => t.content.some((b) => b.type === "tool_use"))) return false;
  return !isThinking(loop[0]?.content[0]);
}

/**
 * With thinking off, Anthropic refuses thinking blocks in a final assistant turn (a prefill); earlier turns
 * may keep theirs (the API ignores them). Removes them from that turn, in place.
 */
export function dropFinalThinking(turns: AnthropicTurn[]): void {
  const last = turns[turns.length - 1];
  if (last?.role !== "assistant") return;
  last.content = last.content.filter((b) => !isThinking(b));
  if (last.content.length === 0) turns.pop();
}
