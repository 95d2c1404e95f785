// Shape of the attempt plan: pool vs fallback ordering and its length.
import { describe, expect, test } from "bun:test";
import { planRoute, type PlanInput } from "../../../src/routing/candidates";
import { HealthStore } from "../../../src/routing/health";
import type { RoutePlan } from "../../../src/routing/types";
import { keys, model, provider, route } from "./fixtures";

const NOW = 1_000_000;

const dear = model("acme/dear", [
  route({ provider: "p1", id: "dear-1", input: 6, output: 6 }),
  route({ provider: "p2", id: "dear-2", input: 5, output: 5 }),
]);
const cheap = model("acme/cheap", [
  route({ provider: "p1", id: "cheap-1", input: 2, output: 2 }),
  route({ provider: "p2", id: "cheap-2", input: 1, output: 1 }),
]);

// 25 routes of one model on 25 providers, cheapest first by index.
const wide = model(
  "acme/wide",
  Array.from({ length: 25 }, (_, i) => route({ provider: `w${i}`, input: i + 1, output: i + 1 })),
);

const providers = new Map(["p1", "p2", ...Array.from({ length: 25 }, (_, i) => `w${i}`)].map((id) => [id, provider(id)]));

function run(overrides: Partial<PlanInput>): RoutePlan {
  return planRoute({
    models: [],
    providers,
    request: { optimize: "cost" },
    hasCredential: () => true,
    health: new HealthStore(),
    endpoint: "chat_completions",
    now: NOW,
    ...overrides,
  });
}

function planned(p: RoutePlan): string[] {
  if (!p.ok) throw new Error(`expected a plan, got ${p.code}: ${p.message}`);
  return keys(p.candidates);
}

describe("pool vs fallback", () => {
  test("pool ranks every route of every listed model together", () => {
    const p = run({ models: [dear, cheap], request: { optimize: "cost", mode: "pool" } });
    expect(planned(p)).toEqual(["p2/cheap-2", "p1/cheap-1", "p2/dear-2", "p1/dear-1"]);
    expect(p.ok && p.mode).toBe("pool");
  });

  test("pool is the default mode", () => {
    expect(planned(run({ models: [dear, cheap] }))[0]).toBe("p2/cheap-2");
  });

  test("fallback keeps the models in the given order, ranking each model's routes", () => {
    const p = run({ models: [dear, cheap], request: { optimize: "cost", mode: "fallback" } });
    expect(planned(p)).toEqual(["p2/dear-2", "p1/dear-1", "p2/cheap-2", "p1/cheap-1"]);
  });

  test("fallback skips a model none of whose routes can serve", () => {
    const p = run({
      models: [dear, cheap],
      request: { optimize: "cost", mode: "fallback" },
      defaults: { allow_fallbacks: false },
      hasCredential: () => true,
      health: (() => {
        const h = new HealthStore();
        for (const k of ["p1/dear-1", "p2/dear-2"]) for (let i = 0; i < 3; i++) h.recordFailure(k, {}, NOW);
        return h;
      })(),
    });
    expect(planned(p)).toEqual(["p2/cheap-2"]);
  });

  test("a model listed twice (alias and canonical) is planned once", () => {
    expect(planned(run({ models: [cheap, cheap] }))).toEqual(["p2/cheap-2", "p1/cheap-1"]);
  });
});

describe("plan length", () => {
  test("defaults allow 1 + 19 attempts", () => {
    const p = planned(run({ models: [wide] }));
    expect(p.length).toBe(20);
    expect(p[0]).toBe("w0/w0-model");
    expect(p[19]).toBe("w19/w19-model");
  });

  test("max_fallback_attempts caps the plan at 1 + max_fallback_attempts", () => {
    expect(planned(run({ models: [wide], defaults: { max_fallback_attempts: 2 } }))).toEqual(["w0/w0-model", "w1/w1-model", "w2/w2-model"]);
  });

  test("max_fallback_attempts caps a fallback plan across models", () => {
    const p = run({
      models: [dear, cheap],
      request: { optimize: "cost", mode: "fallback" },
      defaults: { max_fallback_attempts: 2 },
    });
    expect(planned(p)).toEqual(["p2/dear-2", "p1/dear-1", "p2/cheap-2"]);
  });

  test("allow_fallbacks false yields the single best candidate", () => {
    const p = run({ models: [wide, dear, cheap], defaults: { allow_fallbacks: false, max_fallback_attempts: 5 } });
    expect(planned(p)).toEqual(["w0/w0-model"]);
    const focus = run({
      models: [dear, cheap],
      request: { optimize: "balanced" },
      defaults: { allow_fallbacks: false },
    });
    expect(planned(focus)).toEqual(["p2/cheap-2"]);
  });

  test("no models at all answers no_provider_available", () => {
    expect(run({ models: [] })).toMatchObject({ ok: false, code: "no_provider_available" });
  });
});
