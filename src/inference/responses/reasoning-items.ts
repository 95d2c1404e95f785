// Responses reasoning items ↔ the chat model's reasoning entries (issue 55 conventions 1 and 5). An
// item the Responses API made is its own entries ("openai-responses-v1", sharing the item's id); any
// other family's run of entries travels as one item whose encrypted_content is a `swy1.` token, so that
// a signature made by Claude or Gemini comes back exactly when the client sends the item again.
import { randomBase62 } from "../../platform/ids";
import { itemDetails } from "../../providers/openai-responses/reasoning";
import {
  decodeCarried,
  encodeCarried,
  reasoningText,
  RESPONSES_FORMAT,
  type ReasoningDetail,
  type ReasoningFormat,
} from "../../providers/reasoning";

export const reasoningItemId = (): string => `rs_${randomBase62(24)}`;

export interface SummaryTextPart {
  type: "summary_text";
  text: string;
}
export interface ReasoningTextPart {
  type: "reasoning_text";
  text: string;
}

/** A reasoning output item as OpenAI writes it (no status; `content` and `encrypted_content` only when there are some). */
export interface ReasoningOutputItem {
  type: "reasoning";
  id: string;
  summary: SummaryTextPart[];
  content?: ReasoningTextPart[];
  encrypted_content?: string;
}

/** What an input reasoning item holds (schema.ts validates it). */
export interface ReasoningInput {
  id?: string;
  summary?: { text: string }[];
  content?: { text: string }[] | null;
  encrypted_content?: string | null;
}

/**
 * An input item's entries: the carried entries when its encrypted_content is a `swy1.` token (null when
 * the token cannot be read), else the item's own, one per part, sharing its id.
 */
export function detailsFromReasoningItem(item: ReasoningInput): ReasoningDetail[] | null {
  if (typeof item.encrypted_content === "string") {
    const carried = decodeCarried(item.encrypted_content);
    if (carried !== null) return carried.length > 0 ? carried : null;
  }
  // The client's item has the shape the Responses wire answers with: read as that wire reads its own.
  return itemDetails({ ...item, content: item.content ?? undefined, type: "reasoning" });
}

/** The entries of one output item: a Responses item's own (same id) or another family's run. */
export interface ReasoningGroup {
  own: boolean;
  entries: ReasoningDetail[];
}

/** Splits entries into items: consecutive Responses entries sharing an id, and runs of other families' entries. */
export function groupReasoning(details: readonly ReasoningDetail[]): ReasoningGroup[] {
  const groups: ReasoningGroup[] = [];
  for (const d of details) {
    const own = d.format === RESPONSES_FORMAT;
    const last = groups[groups.length - 1];
    if (last && last.own === own && (!own || last.entries[0]!.id === d.id)) last.entries.push(d);
    else groups.push({ own, entries: [d] });
  }
  return groups;
}

/** Whether an entry starts a new item after `previous` (the streaming form of groupReasoning). */
export function startsNewItem(previous: ReasoningDetail | undefined, next: { format: ReasoningFormat; id?: string }): boolean {
  if (!previous) return true;
  const own = next.format === RESPONSES_FORMAT;
  if ((previous.format === RESPONSES_FORMAT) !== own) return true;
  return own && previous.id !== next.id;
}

/**
 * One group as its output item. A Responses item's encrypted_content is shown only when the client
 * asked for it (include "reasoning.encrypted_content"), as OpenAI does; a carried token always, since
 * the signatures in it are the only way the conversation continues on their provider.
 */
export function reasoningItem(group: ReasoningGroup, includeEncrypted: boolean): ReasoningOutputItem {
  if (!group.own) {
    const text = reasoningText(group.entries);
    return {
      type: "reasoning",
      id: reasoningItemId(),
      summary: text === "" ? [] : [{ type: "summary_text", text }],
      encrypted_content: encodeCarried(group.entries),
    };
  }
  const item: ReasoningOutputItem = { type: "reasoning", id: group.entries[0]!.id ?? reasoningItemId(), summary: [] };
  for (const d of group.entries) {
    if (d.type === "reasoning.summary" && d.summary !== "") item.summary.push({ type: "summary_text", text: d.summary });
    else if (d.type === "reasoning.text") (item.content ??= []).push({ type: "reasoning_text", text: d.text });
    else if (d.type === "reasoning.encrypted" && includeEncrypted) item.encrypted_content = d.data;
  }
  return item;
}

/** A message's reasoning as output items, in order. */
export function reasoningItems(details: readonly ReasoningDetail[], includeEncrypted: boolean): ReasoningOutputItem[] {
  return groupReasoning(details).map((g) => reasoningItem(g, includeEncrypted));
}
