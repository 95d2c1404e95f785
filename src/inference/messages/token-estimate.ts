// The local answer of /v1/messages/count_tokens for a model no Anthropic route can count: the text of a
// Messages body (system, messages, tools) counted with OpenAI's o200k_base BPE (gpt-tokenizer, pure JS,
// its vocabulary shipped in the package). That is the encoding of OpenAI's current models; for others no
// maintained offline tokenizer matches their vocabulary, so it stands in, and the answer says "estimate".
// BPE's cost grows with the square of a piece's length (100,000 letters without a space: ~1 minute), so
// long runs without a space are counted from a sample, and past a budget the rest goes by the ratio so far.
import { isRecord } from "../../providers/content-parts";

export const ESTIMATE_TOKENIZER = "o200k_base";

/** Anthropic's cost of one image at its largest unresized size (~1.15 megapixels / 750); the size is not read. */
export const IMAGE_TOKENS = 1600;
/** Role and separators per message, as OpenAI's chat format counts them. */
export const MESSAGE_OVERHEAD_TOKENS = 3;
/** Characters counted exactly per request (~130,000 tokens of prose, well under 200 ms); the rest by ratio. */
export const EXACT_CHARS = 512 * 1024;
/** A run of this many characters without a space change (or of spaces) is counted from a sample. */
const LONG_RUN = /\S{128,}|\s{128,}/g;
const SLICE = 64;
const CHUNK = 64 * 1024;
const RUN_SAMPLE = 1024;
/** tokens per character assumed before anything was counted (English prose is ~0.25). */
const DEFAULT_RATIO = 0.25;

/** Exact tokens of one text (no special tokens: `<|endoftext|>` in a prompt is text). */
export type TextCounter = (text: string) => number;

/** What is counted in a Messages-shaped body: its texts, and tokens that come without text (images, messages). */
export interface CountedParts {
  texts: string[];
  fixedTokens: number;
}

/** The texts of system, messages and tools; unknown block types count as their JSON (minus their `type`). */
export function countedParts(body: Record<string, unknown>): CountedParts {
  const parts: CountedParts = { texts: [], fixedTokens: 0 };
  systemParts(body.system, parts);
  if (Array.isArray(body.messages)) {
    for (const m of body.messages) {
      parts.fixedTokens += MESSAGE_OVERHEAD_TOKENS;
      if (!isRecord(m)) continue;
      contentParts(m.content, parts);
    }
  }
  if (Array.isArray(body.tools)) for (const t of body.tools) toolParts(t, parts);
  return parts;
}

function systemParts(system: unknown, parts: CountedParts): void {
  if (typeof system === "string") parts.texts.push(system);
  else if (Array.isArray(system)) contentParts(system, parts);
}

function contentParts(content: unknown, parts: CountedParts): void {
  if (typeof content === "string") return void parts.texts.push(content);
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (typeof block === "string") parts.texts.push(block);
    else if (isRecord(block)) blockParts(block, parts);
  }
}

function blockParts(block: Record<string, unknown>, parts: CountedParts): void {
  const { type, cache_control: _, citations: __, ...rest } = block;
  switch (type) {
    case "text":
      return void (typeof rest.text === "string" && parts.texts.push(rest.text));
    case "thinking":
      return void (typeof rest.thinking === "string" && parts.texts.push(rest.thinking));
    case "redacted_thinking":
      return;
    case "image":
      parts.fixedTokens += IMAGE_TOKENS;
      return;
    case "tool_use":
    case "server_tool_use":
      if (typeof rest.name === "string") parts.texts.push(rest.name);
      parts.texts.push(JSON.stringify(rest.input ?? {}));
      return;
    case "tool_result":
      return contentParts(rest.content, parts);
    case "document":
      return documentParts(rest, parts);
    default:
      parts.texts.push(JSON.stringify(rest));
  }
}

/** A plain-text document counts its text and title; a PDF's pages cannot be known without reading it, and count nothing. */
function documentParts(doc: Record<string, unknown>, parts: CountedParts): void {
  if (typeof doc.title === "string") parts.texts.push(doc.title);
  const source = doc.source;
  if (isRecord(source) && source.type === "text" && typeof source.data === "string") parts.texts.push(source.data);
  else if (isRecord(source) && source.type === "content") contentParts(source.content, parts);
}

function toolParts(tool: unknown, parts: CountedParts): void {
  if (!isRecord(tool)) return;
  for (const field of ["name", "type", "description"] as const) {
    const v = tool[field];
    if (typeof v === "string") parts.texts.push(v);
  }
  if (tool.input_schema !== undefined) parts.texts.push(JSON.stringify(tool.input_schema));
}

/** The estimate for a body: its parts counted within the exact budget. */
export function estimateInputTokens(body: Record<string, unknown>, count: TextCounter): number {
  const { texts, fixedTokens } = countedParts(body);
  return fixedTokens + new BudgetedCount(count).all(texts);
}

/** Counts texts exactly up to EXACT_CHARS, long runs from a sample, and the rest at the ratio seen so far. */
class BudgetedCount {
  private exactChars = 0;
  private exactTokens = 0;

  constructor(private readonly count: TextCounter) {}

  all(texts: readonly string[]): number {
    let total = 0;
    for (const text of texts) total += this.text(text);
    return total;
  }

  private ratio(): number {
    return this.exactChars > 0 ? this.exactTokens / this.exactChars : DEFAULT_RATIO;
  }

  private text(text: string): number {
    let total = 0;
    let last = 0;
    for (const run of text.matchAll(LONG_RUN)) {
      total += this.segment(text.slice(last, run.index));
      total += this.run(run[0]);
      last = run.index + run[0].length;
    }
    return total + this.segment(text.slice(last));
  }

  /** Text without long runs, in chunks cut before a space, so that the budget holds inside one long text too. */
  private segment(text: string): number {
    let total = 0;
    for (let at = 0; at < text.length;) {
      const left = EXACT_CHARS - this.exactChars;
      if (left <= 0) return total + Math.ceil((text.length - at) * this.ratio());
      let end = Math.min(text.length, at + Math.min(left, CHUNK));
      if (end < text.length) end = spaceBefore(text, at, end);
      total += this.exact(text.slice(at, end));
      at = end;
    }
    return total;
  }

  /** A long run in slices of SLICE characters: its first RUN_SAMPLE exactly, the rest at that sample's ratio. */
  private run(run: string): number {
    if (this.exactChars >= EXACT_CHARS) return Math.ceil(run.length * this.ratio());
    const sampled = Math.min(run.length, RUN_SAMPLE);
    let tokens = 0;
    for (let i = 0; i < sampled; i += SLICE) tokens += this.exact(run.slice(i, Math.min(i + SLICE, sampled)));
    return tokens + Math.ceil(((run.length - sampled) * tokens) / sampled);
  }

  private exact(text: string): number {
    const tokens = this.count(text);
    this.exactChars += text.length;
    this.exactTokens += tokens;
    return tokens;
  }
}

const SPACE = /\s/;

/** The last whitespace position in (at, end], where a word starts its own piece; `end` when there is none. */
function spaceBefore(text: string, at: number, end: number): number {
  for (let i = end; i > at; i--) if (SPACE.test(text[i]!)) return i;
  return end;
}

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
let loading: Promise<TextCounter> | null = null;

/**
 * o200k_base's counter, loaded on first use: its vocabulary costs ~0.5 s and ~80 MB, which a gateway that
 * never estimates should not pay at start-up. A failed load is tried again by the next call.
 */
export function o200kCounter(): Promise<TextCounter> {
  loading ??= import("gpt-tokenizer/encoding/o200k_base").then(
    (m): TextCounter =>
      (text) =>
        m.countTokens(text, PLAIN_TEXT),
    (err: unknown) => {
      loading = null;
      throw err;
    },
  );
  return loading;
}
