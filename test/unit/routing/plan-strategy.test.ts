// Ranking rules (docs/contract.md "Routing"): strict strategies, *-focus weights, balanced, live measurements.
import { describe, expect, test } from "bun:test";
import { planRoute, type PlanInput } from "../../../src/routing/candidates";
import { HealthStore } from "../../../src/routing/health";
import type { Candidate, Optimize } from "../../../src/routing/types";
import { keys, model, providerMap, route } from "./fixtures";

const NOW = 1_000_000;

function plan(models: PlanInput["models"], optimize?: Optimize, health = new HealthStore()) {
  const result = planRoute({
    models,
    providers: providerMap("a", "b", "c", "d"),
    request: optimize === undefined ? undefined : { optimize },
    hasCredential: () => true,
    health,
    endpoint: "chat_completions",
    now: NOW,
  });
  if (!result.ok) throw new Error(`expected a plan, got ${result.code}: ${result.message}`);
  return result;
}

// Each route is best on exactly one figure.
const trio = model("acme/trio", [
  route({ provider: "a", input: 1, output: 1, ttft: 900, tps: 20 }), // cheapest
  route({ provider: "b", input: 4, output: 4, ttft: 100, tps: 60 }), // fastest first token
  route({ provider: "c", input: 3, output: 3, ttft: 500, tps: 200 }), // highest throughput
]);

describe("strict strategies", () => {
  test("cheapest wins under cost", () => {
    const p = plan([trio], "cost");
    expect(keys(p.candidates)).toEqual(["a/a-model", "c/c-model", "b/b-model"]);
    expect(p.strategy).toBe("cost");
    expect(p.candidates[0].breakdown.cost).toEqual({ value: 1, normalized: 1, weight: 1 });
  });

  test("ttft orders by expected time to first token", () => {
    expect(keys(plan([trio], "ttft").candidates)).toEqual(["b/b-model", "c/c-model", "a/a-model"]);
  });

  test("tps orders by highest throughput", () => {
    expect(keys(plan([trio], "tps").candidates)).toEqual(["c/c-model", "b/b-model", "a/a-model"]);
  });

  test("cost ties are broken by TTFT, then TPS", () => {
    const tied = model("acme/tied", [
      route({ provider: "a", input: 2, output: 2, ttft: 800, tps: 50 }),
      route({ provider: "b", input: 1, output: 3, ttft: 300, tps: 10 }), // same blended price 2
      route({ provider: "c", input: 2, output: 2, ttft: 300, tps: 90 }),
    ]);
    expect(keys(plan([tied], "cost").candidates)).toEqual(["c/c-model", "b/b-model", "a/a-model"]);
  });

  test("ttft prefers the measured-fastest route after traffic, not the hint", () => {
    const health = new HealthStore();
    const m = model("acme/m", [
      route({ provider: "a", input: 1, output: 1, ttft: 200 }),
      route({ provider: "b", input: 1, output: 1, ttft: 800 }),
    ]);
    expect(keys(plan([m], "ttft", health).candidates)[0]).toBe("a/a-model");
    health.recordSuccess("a/a-model", { ttftMs: 1_500, latencyMs: 2_000 }, NOW);
    health.recordSuccess("b/b-model", { ttftMs: 150, latencyMs: 600 }, NOW);
    const after = plan([m], "ttft", health);
    expect(keys(after.candidates)).toEqual(["b/b-model", "a/a-model"]);
    // One sample outweighs the prior (a pseudo-sample of weight 0.25): 150^0.8 · 800^0.2 ≈ 209 ms.
    expect(after.candidates[0].estimate.ttftP50Ms).toBeCloseTo(Math.exp(0.8 * Math.log(150) + 0.2 * Math.log(800)), 6);
  });

  test("tps prefers the measured-highest throughput after traffic", () => {
    const health = new HealthStore();
    const m = model("acme/m", [
      route({ provider: "a", input: 1, output: 1, tps: 300 }),
      route({ provider: "b", input: 1, output: 1, tps: 30 }),
    ]);
    health.recordSuccess("a/a-model", { tps: 25, latencyMs: 900 }, NOW);
    health.recordSuccess("b/b-model", { tps: 120, latencyMs: 900 }, NOW);
    expect(keys(plan([m], "tps", health).candidates)).toEqual(["b/b-model", "a/a-model"]);
  });
});

// A: cheapest but slow; B: middle on everything; C: dearest but fastest.
const spread = model("acme/spread", [
  route({ provider: "a", input: 1, output: 1, ttft: 1_000, tps: 10 }),
  route({ provider: "b", input: 3, output: 3, ttft: 200, tps: 100 }),
  route({ provider: "c", input: 5, output: 5, ttft: 100, tps: 120 }),
]);

function expectWeightedScore(c: Candidate): void {
  const b = c.breakdown;
  const expected = b.cost.weight * b.cost.normalized + b.ttft.weight * b.ttft.normalized + b.tps.weight * b.tps.normalized;
  expect(c.score).toBeCloseTo(expected, 12);
}

describe("weighted strategies", () => {
  test("focus weights are 70 % on the figure and 15 % on each other", () => {
    const cost = plan([spread], "cost-focus").candidates[0].breakdown;
    expect([cost.cost.weight, cost.ttft.weight, cost.tps.weight]).toEqual([0.7, 0.15, 0.15]);
    const ttft = plan([spread], "ttft-focus").candidates[0].breakdown;
    expect([ttft.cost.weight, ttft.ttft.weight, ttft.tps.weight]).toEqual([0.15, 0.7, 0.15]);
    const tps = plan([spread], "tps-focus").candidates[0].breakdown;
    expect([tps.cost.weight, tps.ttft.weight, tps.tps.weight]).toEqual([0.15, 0.15, 0.7]);
  });

  test("figures are min-max normalised: best 1, worst 0, lower cost and TTFT are better", () => {
    const [a, b, c] = ["a/a-model", "b/b-model", "c/c-model"].map(
      (k) => plan([spread], "balanced").candidates.find((x) => x.routeKey === k)!.breakdown,
    );
    expect([a.cost.normalized, b.cost.normalized, c.cost.normalized]).toEqual([1, 0.5, 0]);
    expect(a.ttft.normalized).toBe(0);
    expect(c.ttft.normalized).toBe(1);
    expect(b.ttft.normalized).toBeCloseTo(800 / 900, 12);
    expect(a.tps.normalized).toBe(0);
    expect(c.tps.normalized).toBe(1);
    expect(b.tps.normalized).toBeCloseTo(90 / 110, 12);
  });

  test("cost-focus keeps the cheapest first while a near-tie on price loses to much better speed", () => {
    expect(keys(plan([spread], "cost-focus").candidates)).toEqual(["a/a-model", "b/b-model", "c/c-model"]);
    const nearTie = model("acme/near", [
      route({ provider: "a", input: 1, output: 1, ttft: 2_000, tps: 10 }),
      route({ provider: "b", input: 1.1, output: 1.1, ttft: 100, tps: 100 }),
      route({ provider: "c", input: 5, output: 5, ttft: 1_000, tps: 50 }),
    ]);
    expect(keys(plan([nearTie], "cost").candidates)[0]).toBe("a/a-model");
    const focus = plan([nearTie], "cost-focus").candidates;
    expect(keys(focus)[0]).toBe("b/b-model");
    focus.forEach(expectWeightedScore);
  });

  test("ttft-focus puts the fastest first token first", () => {
    const p = plan([spread], "ttft-focus");
    expect(keys(p.candidates)).toEqual(["c/c-model", "b/b-model", "a/a-model"]);
    p.candidates.forEach(expectWeightedScore);
  });

  test("balanced weighs the three figures equally and favours the all-rounder", () => {
    const p = plan([spread], "balanced");
    expect(keys(p.candidates)[0]).toBe("b/b-model");
    const b = p.candidates[0].breakdown;
    expect([b.cost.weight, b.ttft.weight, b.tps.weight]).toEqual([1 / 3, 1 / 3, 1 / 3]);
    p.candidates.forEach(expectWeightedScore);
  });

  test("a single candidate scores 1 on every figure", () => {
    const p = plan([model("acme/one", [route({ provider: "a", input: 1, output: 2 })])], "balanced");
    expect(p.candidates[0].score).toBeCloseTo(1, 12);
  });
});

describe("strategy selection", () => {
  test("defaults to cost-focus, then the workspace default, then the request", () => {
    const base = {
      models: [spread],
      providers: providerMap("a", "b", "c"),
      hasCredential: () => true,
      health: new HealthStore(),
      endpoint: "chat_completions" as const,
      now: NOW,
    };
    const none = planRoute(base);
    const ws = planRoute({ ...base, defaults: { optimize: "balanced" } });
    const req = planRoute({ ...base, defaults: { optimize: "balanced" }, request: { optimize: "tps" } });
    expect([none, ws, req].map((p) => (p.ok ? p.strategy : p.code))).toEqual(["cost-focus", "balanced", "tps"]);
  });
});
