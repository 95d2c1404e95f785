import { describe, expect, test } from "bun:test";
import {
  costMicrodollars,
  costMicrodollarsBig,
  estimateMaxCostMicrodollarsBig,
  estimateMaxCostMicrodollars,
  estimatePromptTokens,
  formatUsd,
  usdToMicrodollars,
} from "../../../src/metering/pricing";

const usage = (inputTokens: number, outputTokens: number, cachedTokens = 0) => ({ inputTokens, outputTokens, cachedTokens });

describe("costMicrodollars (docs/contract.md, records and usage)", () => {
  test("one token at $1 per 1M is exactly one microdollar", () => {
    expect(costMicrodollars(usage(1, 0), { inputPrice: 1, outputPrice: 0 })).toBe(1);
    expect(costMicrodollars(usage(0, 1), { inputPrice: 0, outputPrice: 1 })).toBe(1);
    expect(costMicrodollars(usage(1000, 500), { inputPrice: 0.5, outputPrice: 1.5 })).toBe(1250);
  });

  test("rounds half up per attempt", () => {
    expect(costMicrodollars(usage(1, 0), { inputPrice: 0.5, outputPrice: 0 })).toBe(1); // 0.5 → 1
    expect(costMicrodollars(usage(1, 0), { inputPrice: 0.49, outputPrice: 0 })).toBe(0);
    expect(costMicrodollars(usage(3, 0), { inputPrice: 0.5, outputPrice: 0 })).toBe(2); // 1.5 → 2
    expect(costMicrodollars(usage(5, 0), { inputPrice: 0.1, outputPrice: 0 })).toBe(1); // 0.5 → 1
  });

  test("exact where floats are not: 0.1 + 0.2 style prices", () => {
    // In floats 3 × 0.1 + 2 × 0.2 … lands just below or above .5 steps; integers do not.
    expect(costMicrodollars(usage(1, 1), { inputPrice: 0.1, outputPrice: 0.2 })).toBe(0); // 0.3
    expect(costMicrodollars(usage(5, 5), { inputPrice: 0.1, outputPrice: 0.2 })).toBe(2); // 1.5 → 2
    // 1 × 0.1 + 18 × 0.3 is 5.5 exactly, but 5.499999999999999 in floats, which would round to 5.
    expect(Math.round(1 * 0.1 + 18 * 0.3)).toBe(5);
    expect(costMicrodollars(usage(1, 18), { inputPrice: 0.1, outputPrice: 0.3 })).toBe(6);
    expect(costMicrodollars(usage(2, 31), { inputPrice: 0.1, outputPrice: 0.3 })).toBe(10); // 9.5 → 10
    expect(costMicrodollars(usage(1, 0), { inputPrice: 2.675, outputPrice: 0 })).toBe(3); // 2.675 → 3
    expect(costMicrodollars(usage(100, 0), { inputPrice: 0.075, outputPrice: 0 })).toBe(8); // 7.5 → 8
  });

  test("cached tokens at the cache-read price, the rest of the input at the input price", () => {
    const prices = { inputPrice: 3, outputPrice: 15, cacheReadPrice: 0.3 };
    // 1000 input of which 800 cached: 200 × 3 + 800 × 0.3 + 100 × 15 = 600 + 240 + 1500
    expect(costMicrodollars(usage(1000, 100, 800), prices)).toBe(2340);
    // Without a cache-read price, cached tokens cost the input price.
    expect(costMicrodollars(usage(1000, 100, 800), { inputPrice: 3, outputPrice: 15, cacheReadPrice: null })).toBe(4500);
    expect(costMicrodollars(usage(1000, 100, 800), { inputPrice: 3, outputPrice: 15 })).toBe(4500);
    // A bad report (more cached than input) is clamped, never negative.
    expect(costMicrodollars(usage(10, 0, 50), prices)).toBe(3);
  });

  test("large counts stay exact", () => {
    expect(costMicrodollars(usage(123_456_789, 98_765_432), { inputPrice: 0.0375, outputPrice: 0.6 })).toBe(63_888_889);
  });
});

describe("estimateMaxCostMicrodollars", () => {
  test("prompt ≈ chars / 4 rounded up, plus max output, rounded up", () => {
    expect(estimatePromptTokens({ promptChars: 9 })).toBe(3);
    expect(estimatePromptTokens({ promptTokens: 10, promptChars: 9999 })).toBe(10);
    expect(estimateMaxCostMicrodollars({ promptChars: 4000 }, 1000, { inputPrice: 0.5, outputPrice: 1.5 })).toBe(2000);
    expect(estimateMaxCostMicrodollars({ promptChars: 1 }, 0, { inputPrice: 0.1, outputPrice: 1 })).toBe(1);
    // Never below the actual cost of the same tokens.
    const prices = { inputPrice: 0.15, outputPrice: 0.6, cacheReadPrice: 0.075 };
    expect(estimateMaxCostMicrodollars({ promptTokens: 333 }, 77, prices)).toBeGreaterThanOrEqual(costMicrodollars(usage(333, 77), prices));
  });
});

describe("USD conversions", () => {
  test("formatUsd is exact and keeps at least two decimals", () => {
    expect(formatUsd(0)).toBe("0.00");
    expect(formatUsd(1_234_567)).toBe("1.234567");
    expect(formatUsd(5_000_000)).toBe("5.00");
    expect(formatUsd(100)).toBe("0.0001");
    expect(formatUsd(-2_500_000)).toBe("-2.50");
  });

  test("usdToMicrodollars", () => {
    expect(usdToMicrodollars(10)).toBe(10_000_000);
    expect(usdToMicrodollars(0.29)).toBe(290_000);
    expect(usdToMicrodollars(-1.5)).toBe(-1_500_000);
  });
});

test("the Number fast path gives exactly the BigInt result, for small and huge token counts alike", () => {
  // A seeded generator: the same 20,000 cases every run.
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const prices = [0, 0.075, 0.1, 0.15, 0.2, 1.25, 2.5, 3, 15, 60, 75, 150, 0.0001];
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const count = () => Math.floor(rnd() ** 3 * pick([10, 1e4, 1e6, 1e9, 1e12, 1e15]));
  let bigPathUsed = 0;
  for (let i = 0; i < 20_000; i++) {
    const p = {
      inputPrice: pick(prices) * (rnd() < 0.3 ? rnd() * 10 : 1),
      outputPrice: pick(prices),
      cacheReadPrice: rnd() < 0.5 ? pick(prices) : null,
    };
    const usage = { inputTokens: count(), outputTokens: count(), cachedTokens: count() };
    expect(costMicrodollars(usage, p)).toBe(costMicrodollarsBig(usage, p));
    const size = rnd() < 0.5 ? { promptTokens: count() } : { promptChars: count() };
    const maxOut = count();
    expect(estimateMaxCostMicrodollars(size, maxOut, p)).toBe(estimateMaxCostMicrodollarsBig(size, maxOut, p));
    if (costMicrodollars(usage, p) > 9_007_199) bigPathUsed++;
  }
  expect(bigPathUsed).toBeGreaterThan(100); // the BigInt fallback was exercised, not only the fast path
});
