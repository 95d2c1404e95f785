// The worst-case cost a call reserves (budgets and credits, docs/contract.md "Rate limits, credits and budgets"), computed from what each
// candidate would actually send: the request with that provider's `extensions` merged over it (which
// may replace max_tokens, n or the messages), the largest output the body allows, times the number of
// choices asked for.
import { estimateMaxCostMicrodollars } from "../metering/pricing";
import { isRecord } from "../providers/content-parts";
import type { Candidate } from "../routing/types";
import type { Prepared } from "./prepare";

/** Characters counted for a non-text content part (an image or file): a generous flat size. */
const PART_CHARS = 1000;

function messageChars(messages: Prepared["request"]["messages"]): number {
  let n = 0;
  for (const m of messages) {
    if (typeof m.content === "string") n += m.content.length;
    else if (Array.isArray(m.content))
      for (const part of m.content) n += part.type === "text" ? (part as { text: string }).text.length : PART_CHARS;
  }
  return n;
}

/** The output-size fields of every wire an extension may set (chat, Responses, Messages, Gemini). */
function extensionMaxTokens(ext: Record<string, unknown>): number | undefined {
  const gen = isRecord(ext.generationConfig) ? ext.generationConfig : undefined;
  for (const v of [ext.max_completion_tokens, ext.max_tokens, ext.max_output_tokens, gen?.maxOutputTokens]) {
    if (typeof v === "number" && Number.isFinite(v)) return v;
  }
  return undefined;
}

function extensionChoices(ext: Record<string, unknown>): number | undefined {
  const gen = isRecord(ext.generationConfig) ? ext.generationConfig : undefined;
  for (const v of [ext.n, gen?.candidateCount]) if (typeof v === "number" && Number.isFinite(v)) return v;
  return undefined;
}

/** Prompt fields an extension may set; the first three replace the conversation, the rest add to it. */
const REPLACING = ["messages", "input", "contents"];
const ADDING = ["system", "instructions", "systemInstruction"];

/** The prompt's size once `ext` is merged, each field it sets measured by its JSON length (an upper bound on its text). */
function promptCharsWith(ext: Record<string, unknown>, chars: number): number {
  let n = REPLACING.some((k) => ext[k] !== undefined) ? 0 : chars;
  for (const key of [...REPLACING, ...ADDING]) if (ext[key] !== undefined) n += JSON.stringify(ext[key]).length;
  return n;
}

function candidateCost(c: Candidate, chars: number, asked: number | undefined, choices: number): number {
  const out = Math.min(asked ?? c.route.maxOutputTokens, c.route.maxOutputTokens);
  return estimateMaxCostMicrodollars({ promptChars: chars }, out, c.route) * choices;
}

/** Worst case over the plan: the most expensive candidate's final body at the largest output it allows. */
export function maxCostMicrodollars(p: Prepared): number {
  const chars = messageChars(p.request.messages);
  const asked = p.request.max_completion_tokens ?? p.request.max_tokens;
  const choices = Math.max(1, Math.trunc(p.request.n ?? 1));
  let worst = 0;
  for (const c of p.candidates) {
    const ext = p.extensions[c.provider.id];
    // The usual call has no extensions: nothing to look up.
    if (ext === undefined) {
      worst = Math.max(worst, candidateCost(c, chars, asked, choices));
      continue;
    }
    const n = extensionChoices(ext);
    const cost = candidateCost(
      c,
      promptCharsWith(ext, chars),
      extensionMaxTokens(ext) ?? asked,
      n === undefined ? choices : Math.max(1, Math.trunc(n)),
    );
    worst = Math.max(worst, cost);
  }
  return worst;
}
