// A model's reasoning in the chat model: `reasoning_details`, the array OpenRouter's chat API uses (and
// the Vercel AI SDK's OpenRouter provider round-trips), each entry tagged with the provider family whose
// private state it carries. Every wire reads its own reasoning into these entries and writes back only
// the entries of its own family: a signature goes back exactly as it came, and only to the family that
// made it. Dialects whose reasoning fields have one provider's shape (a Messages thinking block's
// `signature`, a Responses reasoning item's `encrypted_content`) carry another family's entries in that
// field as a `swy1.` token (encodeCarried), so that a conversation that stays on one family keeps its
// signatures whatever the client speaks.
import { isRecord } from "./content-parts";

/** Whose private state an entry carries (OpenRouter's format names); `unknown` is text any wire may show. */
export type ReasoningFormat = "anthropic-claude-v1" | "openai-responses-v1" | "google-gemini-v1" | "unknown";

export const ANTHROPIC_FORMAT = "anthropic-claude-v1" satisfies ReasoningFormat;
export const RESPONSES_FORMAT = "openai-responses-v1" satisfies ReasoningFormat;
export const GEMINI_FORMAT = "google-gemini-v1" satisfies ReasoningFormat;

/**
 * One entry of a message's reasoning.
 * - `reasoning.text`: visible thinking (an Anthropic thinking block, a Gemini thought part), with the
 *   signature that must come back with it.
 * - `reasoning.summary`: one summary part of a Responses reasoning item.
 * - `reasoning.encrypted`: opaque state (Anthropic redacted_thinking's `data`, a Responses item's
 *   `encrypted_content`, a Gemini thoughtSignature on a function call, whose call id is then `id`).
 * `id` is the provider's item id (a Responses reasoning item's `rs_…`) or the tool call an entry belongs
 * to; entries of one Responses item share its id.
 */
export type ReasoningDetail =
  | { type: "reasoning.text"; text: string; signature?: string; format: ReasoningFormat; id?: string; index?: number }
  | { type: "reasoning.summary"; summary: string; format: ReasoningFormat; id?: string; index?: number }
  | { type: "reasoning.encrypted"; data: string; format: ReasoningFormat; id?: string; index?: number };

/**
 * In a stream, `delta.extra.reasoning_details` holds fragments: each names the entry it belongs to by
 * `index` (its position in the message's reasoning_details); `text` and `summary` are appended, the
 * other fields set. mergeFragment builds the entries back.
 */
export type ReasoningFragment = Partial<Omit<ReasoningDetail, "type" | "format">> & {
  type: ReasoningDetail["type"];
  format: ReasoningFormat;
  index: number;
  text?: string;
  summary?: string;
  signature?: string;
  data?: string;
};

const TYPES = new Set(["reasoning.text", "reasoning.summary", "reasoning.encrypted"]);
const FORMATS = new Set(["anthropic-claude-v1", "openai-responses-v1", "google-gemini-v1", "unknown"]);

/** A client's `reasoning_details` value, kept entry by entry where it has the shape above (anything else is dropped). */
export function readDetails(value: unknown): ReasoningDetail[] {
  if (!Array.isArray(value)) return [];
  const out: ReasoningDetail[] = [];
  for (const entry of value) {
    if (!isRecord(entry) || typeof entry.type !== "string" || !TYPES.has(entry.type)) continue;
    const format = (typeof entry.format === "string" && FORMATS.has(entry.format) ? entry.format : "unknown") as ReasoningFormat;
    const base: { format: ReasoningFormat; id?: string } = { format };
    if (typeof entry.id === "string") base.id = entry.id;
    if (entry.type === "reasoning.text" && typeof entry.text === "string") {
      const detail: ReasoningDetail = { type: "reasoning.text", text: entry.text, ...base };
      if (typeof entry.signature === "string" && entry.signature !== "") detail.signature = entry.signature;
      out.push(detail);
    } else if (entry.type === "reasoning.summary" && typeof entry.summary === "string") {
      out.push({ type: "reasoning.summary", summary: entry.summary, ...base });
    } else if (entry.type === "reasoning.encrypted" && typeof entry.data === "string") {
      out.push({ type: "reasoning.encrypted", data: entry.data, ...base });
    }
  }
  return out;
}

/** The entries' readable text (thinking and summaries), as chat's `reasoning_content` shows it. */
export function reasoningText(details: readonly ReasoningDetail[]): string {
  let text = "";
  for (const d of details) {
    const part = d.type === "reasoning.text" ? d.text : d.type === "reasoning.summary" ? d.summary : "";
    if (part === "") continue;
    text += text === "" ? part : `\n\n${part}`;
  }
  return text;
}

/** The entries one wire may send back: its own family's. */
export function ofFormat(details: readonly ReasoningDetail[] | undefined, format: ReasoningFormat): ReasoningDetail[] {
  return details ? details.filter((d) => d.format === format) : [];
}

/** Adds a stream fragment to the entries built so far (in place). */
export function mergeFragment(details: ReasoningDetail[], fragment: ReasoningFragment): void {
  let entry = details[fragment.index];
  if (!entry) {
    const base = { format: fragment.format, ...(fragment.id !== undefined ? { id: fragment.id } : {}) };
    entry =
      fragment.type === "reasoning.text"
        ? { type: "reasoning.text", text: "", ...base }
        : fragment.type === "reasoning.summary"
          ? { type: "reasoning.summary", summary: "", ...base }
          : { type: "reasoning.encrypted", data: "", ...base };
    details[fragment.index] = entry;
  }
  if (fragment.id !== undefined) entry.id = fragment.id;
  if (entry.type === "reasoning.text") {
    if (fragment.text) entry.text += fragment.text;
    if (fragment.signature) entry.signature = fragment.signature;
  } else if (entry.type === "reasoning.summary") {
    if (fragment.summary) entry.summary += fragment.summary;
  } else if (fragment.data) entry.data = fragment.data;
}

/** A delta's reasoning fragments (`extra.reasoning_details`), or none. */
export function fragmentsOf(extra: Record<string, unknown> | undefined): ReasoningFragment[] {
  const value = extra?.reasoning_details;
  if (!Array.isArray(value)) return [];
  return value.filter(
    (f): f is ReasoningFragment => isRecord(f) && typeof f.index === "number" && typeof f.type === "string" && TYPES.has(f.type),
  );
}

const CARRIED_PREFIX = "swy1.";

/**
 * Other families' entries, as the text a dialect's own opaque field carries back (`swy1.` + base64url
 * of their JSON). Not a secret: the entries are the client's own conversation; the prefix only tells
 * the gateway, when the client sends it back, that it is not the field's own provider's state.
 */
export function encodeCarried(details: readonly ReasoningDetail[]): string {
  const plain = details.map(({ index: _index, ...d }) => d);
  return CARRIED_PREFIX + Buffer.from(JSON.stringify(plain), "utf8").toString("base64url");
}

/** The entries a `swy1.` token carries; null when the text is the field's own provider's (no prefix) or unreadable. */
export function decodeCarried(text: string): ReasoningDetail[] | null {
  if (!text.startsWith(CARRIED_PREFIX)) return null;
  try {
    return readDetails(JSON.parse(Buffer.from(text.slice(CARRIED_PREFIX.length), "base64url").toString("utf8")));
  } catch {
    return [];
  }
}

/** Whether an opaque field holds carried entries (a native pass-through must not send those upstream). */
export function isCarried(text: unknown): boolean {
  return typeof text === "string" && text.startsWith(CARRIED_PREFIX);
}
