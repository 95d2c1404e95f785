// Responses reasoning items ↔ the chat model's reasoning entries (providers/reasoning.ts). An item
// {id, summary[], content?[], encrypted_content?} is one entry per summary part, one per reasoning_text
// part and one for the encrypted state, all sharing the item's id; the way back groups consecutive
// entries of this family by id into the item they came from.
import { ofFormat, RESPONSES_FORMAT, type ReasoningDetail, type ReasoningFormat } from "../reasoning";
import type { ResponsesOutputItemWire } from "./wire";

export type ResponsesInputItem = Record<string, unknown>;

/** A reasoning output item's entries; an item with none of the parts still gives one, so that its id survives. */
export function itemDetails(item: ResponsesOutputItemWire): ReasoningDetail[] {
  const base: { format: ReasoningFormat; id?: string } = {
    format: RESPONSES_FORMAT,
    ...(typeof item.id === "string" ? { id: item.id } : {}),
  };
  const out: ReasoningDetail[] = [];
  for (const part of item.summary ?? []) {
    if (typeof part?.text === "string") out.push({ type: "reasoning.summary", summary: part.text, ...base });
  }
  for (const part of item.content ?? []) {
    // Codex sends its own items' parts back typed "text".
    if ((part?.type === "reasoning_text" || part?.type === "text") && typeof part.text === "string")
      out.push({ type: "reasoning.text", text: part.text, ...base });
  }
  if (typeof item.encrypted_content === "string" && item.encrypted_content !== "") {
    out.push({ type: "reasoning.encrypted", data: item.encrypted_content, ...base });
  }
  if (out.length === 0) out.push({ type: "reasoning.summary", summary: "", ...base });
  return out;
}

/**
 * An assistant message's own-family entries as the reasoning input items they came from, in order.
 * The request says `store: false`, so the provider can resolve an item only from what it carries: one
 * with neither encrypted_content nor reasoning text (an id and a summary) would be answered with
 * "Item with id 'rs_…' not found" and is left out.
 */
export function reasoningInputItems(details: readonly ReasoningDetail[] | undefined): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  let current: { id: string | undefined; item: ResponsesInputItem; replayable: boolean } | null = null;
  for (const entry of ofFormat(details, RESPONSES_FORMAT)) {
    if (current === null || current.id !== entry.id) {
      if (current?.replayable) items.push(current.item);
      const item: ResponsesInputItem = { type: "reasoning", ...(entry.id !== undefined ? { id: entry.id } : {}), summary: [] };
      current = { id: entry.id, item, replayable: false };
    }
    const item = current.item;
    if (entry.type === "reasoning.summary") {
      if (entry.summary !== "") (item.summary as unknown[]).push({ type: "summary_text", text: entry.summary });
    } else if (entry.type === "reasoning.text") {
      ((item.content ??= []) as unknown[]).push({ type: "reasoning_text", text: entry.text });
      current.replayable = true;
    } else {
      item.encrypted_content = entry.data;
      current.replayable = true;
    }
  }
  if (current?.replayable) items.push(current.item);
  return items;
}
