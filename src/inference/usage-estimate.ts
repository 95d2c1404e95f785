// What a stream that ended without its upstream's usage (client gone past the drain bound, timeout,
// mid-stream failure) is charged: a token estimate. No tokenizer is a dependency and each provider's
// differs, so the estimate is the rule of thumb of four characters a token (metering/pricing.ts): prompt tokens from
// the request's text, output tokens from the deltas that arrived (at least one token per delta, the
// rate at which providers stream). Inline data (`data:` URLs: images, files) is not counted.
import type { ChatRequest, ChunkDelta, Usage } from "../providers/types";
import { CHARS_PER_TOKEN, estimatePromptTokens } from "../metering/pricing";

/**
 * A plain choice's JSON around its content (providers/types.ts PlainChoiceReader): the pass-through
 * counts a choice's bytes, and this much of them is not content.
 */
export const PLAIN_CHOICE_OVERHEAD = '{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":null}'.length;

/** The output a stream brought so far, counted as it passes (a counter per delta, nothing kept). */
export class OutputCount {
  deltas = 0;
  chars = 0;

  add(d: ChunkDelta): void {
    let chars = (d.content?.length ?? 0) + (d.refusal?.length ?? 0);
    // reasoning_content and the like are output too.
    if (d.extra !== undefined) for (const k in d.extra) if (typeof d.extra[k] === "string") chars += (d.extra[k] as string).length;
    if (d.tool_calls !== undefined)
      for (const call of d.tool_calls) chars += (call.function?.name?.length ?? 0) + (call.function?.arguments?.length ?? 0);
    // A role-only or finish-only delta carries no output.
    if (chars === 0) return;
    this.deltas++;
    this.chars += chars;
  }

  /** `count` plain choices (or native events) of `bytes` bytes in all (the pass-through's; `overhead` each is not content). */
  addPlain(count: number, bytes: number, overhead = PLAIN_CHOICE_OVERHEAD): void {
    this.deltas += count;
    this.chars += Math.max(0, bytes - count * overhead);
  }

  /** A native content event carrying about `chars` characters of output. */
  addRaw(chars: number): void {
    this.deltas++;
    this.chars += chars;
  }

  tokens(): number {
    return Math.max(this.deltas, Math.ceil(this.chars / CHARS_PER_TOKEN));
  }
}

/** The characters of the request's text: every string in its messages, tools and other fields but the model. */
function textChars(value: unknown): number {
  if (typeof value === "string") return value.startsWith("data:") ? 0 : value.length;
  if (typeof value !== "object" || value === null) return 0;
  let n = 0;
  if (Array.isArray(value)) for (const v of value) n += textChars(v);
  else for (const [k, v] of Object.entries(value)) if (k !== "model") n += textChars(v);
  return n;
}

/** The usage charged for a stream that ended without its upstream's usage. */
export function estimatedUsage(request: ChatRequest, out: OutputCount): Usage {
  return {
    inputTokens: estimatePromptTokens({ promptChars: textChars(request) }),
    outputTokens: out.tokens(),
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}
