import { describe, expect, test } from "bun:test";
import { effectiveRoutingDefaults, planLength, resolveRoutingOptions } from "../../../src/routing/defaults";

describe("routing defaults", () => {
  test("never-set defaults are cost-focus, none, fallbacks on, 19 attempts, empty lists", () => {
    expect(effectiveRoutingDefaults(undefined)).toEqual({
      optimize: "cost-focus",
      data_policy: "none",
      allow_fallbacks: true,
      max_fallback_attempts: 19,
      providers: [],
      exclude_providers: [],
      min_throughput_tps: null,
      ttft_percentile: "p50",
      throughput_percentile: "p50",
      min_success_rate: null,
      prefer: [],
      only_byok: false,
      only_platform: false,
      require_parameters: false,
    });
    expect(effectiveRoutingDefaults({ optimize: "tps", providers: ["a"] })).toMatchObject({
      optimize: "tps",
      providers: ["a"],
      allow_fallbacks: true,
    });
  });

  test("request options override workspace defaults", () => {
    expect(resolveRoutingOptions(undefined, undefined)).toEqual({
      mode: "pool",
      optimize: "cost-focus",
      maxCostPer1m: undefined,
      maxTtftMs: undefined,
      minThroughputTps: undefined,
      ttftPercentile: "p50",
      throughputPercentile: "p50",
      minSuccessRate: undefined,
      prefer: [],
      providers: [],
      excludeProviders: [],
      credential: "any",
      requireParameters: false,
    });
    // The workspace's floors, percentiles, preferences and credential choice apply unless the request sets its own.
    const ws = { min_throughput_tps: 50, ttft_percentile: "p95", prefer: ["a"], only_platform: true } as const;
    expect(resolveRoutingOptions(undefined, { ...ws, prefer: ["a"] })).toMatchObject({
      minThroughputTps: 50,
      ttftPercentile: "p95",
      prefer: ["a"],
      credential: "platform",
    });
    expect(resolveRoutingOptions({ minThroughputTps: 10, credential: "byok", prefer: [] }, { ...ws, prefer: ["a"] })).toMatchObject({
      minThroughputTps: 10,
      credential: "byok",
      prefer: [],
    });
    expect(resolveRoutingOptions({ optimize: "ttft", mode: "fallback" }, { optimize: "tps" })).toMatchObject({
      mode: "fallback",
      optimize: "ttft",
    });
    expect(resolveRoutingOptions({ maxCostPer1m: 2 }, { optimize: "tps" }).optimize).toBe("tps");
  });

  test("plan length is 1 without fallbacks, else 1 + max_fallback_attempts clamped to 1..19", () => {
    expect(planLength(undefined)).toBe(20);
    expect(planLength({ allow_fallbacks: false, max_fallback_attempts: 7 })).toBe(1);
    expect(planLength({ max_fallback_attempts: 4 })).toBe(5);
    expect(planLength({ max_fallback_attempts: 99 })).toBe(20);
    expect(planLength({ max_fallback_attempts: 0 })).toBe(2);
  });
});
