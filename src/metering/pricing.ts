// The cost rule (docs/contract.md "Records and usage"), in exact integer arithmetic. Prices are USD per one million tokens, so a
// price is also "microdollars per token": 1 token at $1/1M costs exactly 1 µ$. Prices arrive as floats
// (0.075, 1.25…); each is turned into an integer count of nano-microdollars per token, and every
// product and sum is exact integer arithmetic, so 0.1 + 0.2 style float error can never move a rounding
// step. The hot path (two calls per request) uses Numbers while every product and sum is a safe integer
// (then float arithmetic on integers is exact), and BigInt beyond that.
import type { Usage } from "../providers/types";

export interface Prices {
  /** USD per 1M input tokens. */
  inputPrice: number;
  /** USD per 1M output tokens. */
  outputPrice: number;
  /** USD per 1M cached (cache-read) input tokens; null when the route has no cache-read price. */
  cacheReadPrice?: number | null;
}

/** Price resolution: 1e-9 µ$ per token, far finer than any published price (which stop at ~1e-4 $/1M). */
const SCALE = 1_000_000_000n;
const HALF = SCALE / 2n;

function priceUnits(pricePerMillion: number): bigint {
  return BigInt(priceUnitsN(pricePerMillion));
}

function priceUnitsN(pricePerMillion: number): number {
  if (!Number.isFinite(pricePerMillion) || pricePerMillion < 0) throw new RangeError(`invalid price ${pricePerMillion}`);
  // price × 1e9 is < 2^53 for any price below $9M/1M tokens, so Math.round lands on the intended integer.
  return Math.round(pricePerMillion * 1e9);
}

function tokenCount(n: number): bigint {
  return BigInt(tokens(n));
}

function tokens(n: number): number {
  return Math.max(0, Math.trunc(n || 0));
}

const SCALE_N = 1_000_000_000;

/**
 * floor((units + add) / SCALE) for units = Σ tokens × priceUnits, in Numbers when that is exact, else
 * null. All terms are ≥ 0, so a product or sum past 2^53 shows as a float result ≥ 2^53 (rounding is
 * monotonic) and is caught by the bound; below it every operation is exact.
 */
function exactQuotient(a: number, pa: number, b: number, pb: number, c: number, pc: number, add: number): number | null {
  const t = a * pa + b * pb + c * pc + add;
  if (t > Number.MAX_SAFE_INTEGER) return null;
  return (t - (t % SCALE_N)) / SCALE_N;
}

/**
 * Cost of one attempt in whole microdollars, rounded half up.
 * Cached tokens are part of inputTokens: they are charged at the cache-read price when the route has
 * one, and the rest of the input at the input price. Cache-write and reasoning tokens are charged as
 * ordinary input and output tokens (the contract names no other price for them).
 */
export function costMicrodollars(usage: Pick<Usage, "inputTokens" | "outputTokens" | "cachedTokens">, prices: Prices): number {
  const hasRate = prices.cacheReadPrice !== null && prices.cacheReadPrice !== undefined;
  const inN = tokens(usage.inputTokens);
  const cachedN = hasRate ? Math.min(tokens(usage.cachedTokens), inN) : 0;
  const fast = exactQuotient(
    inN - cachedN,
    priceUnitsN(prices.inputPrice),
    cachedN,
    hasRate ? priceUnitsN(prices.cacheReadPrice as number) : 0,
    tokens(usage.outputTokens),
    priceUnitsN(prices.outputPrice),
    SCALE_N / 2,
  );
  return fast ?? costMicrodollarsBig(usage, prices);
}

/** The same rule in BigInt: any size. Exported for the test that holds the two paths equal. */
export function costMicrodollarsBig(usage: Pick<Usage, "inputTokens" | "outputTokens" | "cachedTokens">, prices: Prices): number {
  const input = tokenCount(usage.inputTokens);
  const output = tokenCount(usage.outputTokens);
  const hasCacheRate = prices.cacheReadPrice !== null && prices.cacheReadPrice !== undefined;
  // A provider cannot report more cached tokens than input tokens; clamp so a bad report never goes negative.
  const cached = hasCacheRate ? minBig(tokenCount(usage.cachedTokens), input) : 0n;
  const units =
    (input - cached) * priceUnits(prices.inputPrice) +
    cached * (hasCacheRate ? priceUnits(prices.cacheReadPrice as number) : 0n) +
    output * priceUnits(prices.outputPrice);
  return Number((units + HALF) / SCALE);
}

export interface PromptSize {
  /** Estimated prompt tokens, when the caller has them. */
  promptTokens?: number;
  /** Prompt length in characters; ≈ 4 characters per token, rounded up. Used when promptTokens is absent. */
  promptChars?: number;
}

/** Characters per token for the estimate: the usual rule of thumb for English text and BPE tokenizers. */
export const CHARS_PER_TOKEN = 4;

export function estimatePromptTokens(size: PromptSize): number {
  if (size.promptTokens !== undefined) return Math.max(0, Math.ceil(size.promptTokens));
  return Math.ceil(Math.max(0, size.promptChars ?? 0) / CHARS_PER_TOKEN);
}

/**
 * Upper-bound cost of a request for budget reservations: the whole estimated prompt at the input price
 * (no cache discount assumed) plus maxOutputTokens at the output price, rounded up so the estimate never
 * undershoots the rounded-half-up actual cost of the same token counts.
 */
export function estimateMaxCostMicrodollars(size: PromptSize, maxOutputTokens: number, prices: Prices): number {
  const prompt = tokens(estimatePromptTokens(size));
  const fast = exactQuotient(
    prompt,
    priceUnitsN(prices.inputPrice),
    tokens(maxOutputTokens),
    priceUnitsN(prices.outputPrice),
    0,
    0,
    SCALE_N - 1,
  );
  return fast ?? estimateMaxCostMicrodollarsBig(size, maxOutputTokens, prices);
}

export function estimateMaxCostMicrodollarsBig(size: PromptSize, maxOutputTokens: number, prices: Prices): number {
  const units =
    tokenCount(estimatePromptTokens(size)) * priceUnits(prices.inputPrice) + tokenCount(maxOutputTokens) * priceUnits(prices.outputPrice);
  return Number((units + SCALE - 1n) / SCALE);
}

/** Microdollars → a USD decimal string, exact (no float division): 1234567 → "1.234567", 5000000 → "5.00". */
export function formatUsd(microdollars: number): string {
  const negative = microdollars < 0;
  const abs = BigInt(Math.abs(Math.trunc(microdollars)));
  const whole = abs / 1_000_000n;
  let frac = (abs % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  if (frac.length < 2) frac = frac.padEnd(2, "0");
  return `${negative ? "-" : ""}${whole}.${frac}`;
}

/** USD (as given in budgets and the CLI) → integer microdollars, rounded half away from zero. */
export function usdToMicrodollars(usd: number): number {
  if (!Number.isFinite(usd)) throw new RangeError(`invalid amount ${usd}`);
  return Math.sign(usd) * Math.round(Math.abs(usd) * 1e6);
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
