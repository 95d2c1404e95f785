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
