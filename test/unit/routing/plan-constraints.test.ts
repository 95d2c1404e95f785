// Filtering rules (docs/contract.md "Routing"): constraints answer no_eligible_route naming the one that emptied
// the list; unservable routes (no credential, open circuit) answer no_provider_available.
import { describe, expect, test } from "bun:test";
import { planRoute, type PlanInput } from "../../../src/routing/candidates";
import { HealthStore } from "../../../src/routing/health";
import type { RoutePlan } from "../../../src/routing/types";
import { keys, model, providerMap, route } from "./fixtures";

const NOW = 1_000_000;

const m = model("acme/chat", [
  route({ provider: "a", input: 1, output: 1, ttft: 300, policy: "none" }), // blended 1
  route({ provider: "b", input: 2, output: 4, ttft: 600, policy: "no_training" }), // blended 3
  route({ provider: "c", input: 8, output: 8, ttft: 900, policy: "zdr" }), // blended 8
]);

function run(overrides: Partial<PlanInput> = {}): RoutePlan {
  return planRoute({
    models: [m],
    providers: providerMap("a", "b", "c"),
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

describe("constraints", () => {
  test("max_cost_per_1m keeps routes whose blended price is at most the ceiling", () => {
    expect(planned(run({ request: { optimize: "cost", maxCostPer1m: 3 } }))).toEqual(["a/a-model", "b/b-model"]);
    expect(planned(run({ request: { optimize: "cost", maxCostPer1m: 2.99 } }))).toEqual(["a/a-model"]);
  });

  test("max_cost_per_1m emptying the list answers no_eligible_route naming max_cost_per_1m", () => {
    const p = run({ request: { maxCostPer1m: 0.5 } });
    expect(p).toMatchObject({ ok: false, code: "no_eligible_route", constraint: "max_cost_per_1m" });
  });

  test("data_policy drops routes weaker than required (zdr > no_training > none)", () => {
    expect(planned(run({ defaults: { data_policy: "no_training" } }))).toEqual(["b/b-model", "c/c-model"]);
    expect(planned(run({ defaults: { data_policy: "zdr" } }))).toEqual(["c/c-model"]);
  });

  test("data_policy emptying the list answers no_eligible_route naming data_policy", () => {
    const weak = model("acme/weak", [route({ provider: "a", input: 1, output: 1, policy: "no_training" })]);
    const p = run({ models: [weak], defaults: { data_policy: "zdr" } });
    expect(p).toMatchObject({ ok: false, code: "no_eligible_route", constraint: "data_policy" });
  });

  test("max_ttft_ms compares the expected TTFT, measured once traffic exists", () => {
    const health = new HealthStore();
    expect(planned(run({ health, request: { optimize: "cost", maxTtftMs: 600 } }))).toEqual(["a/a-model", "b/b-model"]);
    // One slow answer does not outweigh the 300 ms hint (the ceilings' prior counts as two samples)…
    health.recordSuccess("a/a-model", { ttftMs: 2_000, latencyMs: 3_000 }, NOW);
    expect(planned(run({ health, request: { optimize: "cost", maxTtftMs: 600 } }))).toEqual(["a/a-model", "b/b-model"]);
    // …a second one does.
    health.recordSuccess("a/a-model", { ttftMs: 2_000, latencyMs: 3_000 }, NOW);
    expect(planned(run({ health, request: { optimize: "cost", maxTtftMs: 600 } }))).toEqual(["b/b-model"]);
    const p = run({ health, request: { maxTtftMs: 100 } });
    expect(p).toMatchObject({ ok: false, code: "no_eligible_route", constraint: "max_ttft_ms" });
  });

  test("providers allow-list keeps only listed providers", () => {
    expect(planned(run({ defaults: { providers: ["c", "b"] } }))).toEqual(["b/b-model", "c/c-model"]);
    const p = run({ defaults: { providers: ["zeta"] } });
    expect(p).toMatchObject({ ok: false, code: "no_eligible_route", constraint: "providers" });
  });

  test("exclude_providers drops listed providers", () => {
    expect(planned(run({ defaults: { exclude_providers: ["a"] } }))).toEqual(["b/b-model", "c/c-model"]);
    const p = run({ defaults: { exclude_providers: ["a", "b", "c"] } });
    expect(p).toMatchObject({ ok: false, code: "no_eligible_route", constraint: "exclude_providers" });
  });

  test("the constraint named is the one that emptied the list, in filter order", () => {
    // The allow-list leaves b; b's data policy passes; its price does not.
    const p = run({ defaults: { providers: ["b"], data_policy: "no_training" }, request: { maxCostPer1m: 2 } });
    expect(p).toMatchObject({ ok: false, code: "no_eligible_route", constraint: "max_cost_per_1m" });
    if (!p.ok) expect(p.message).toContain("max_cost_per_1m");
  });
});

describe("servability", () => {
  test("a provider without a credential is excluded", () => {
    expect(planned(run({ hasCredential: (id) => id !== "a" }))).toEqual(["b/b-model", "c/c-model"]);
  });

  test("no credential anywhere answers no_provider_available, not no_eligible_route", () => {
    expect(run({ hasCredential: () => false })).toMatchObject({ ok: false, code: "no_provider_available" });
  });

  test("a provider missing from the providers map is not routed to", () => {
    expect(planned(run({ providers: providerMap("b", "c") }))).toEqual(["b/b-model", "c/c-model"]);
  });

  test("an open circuit is excluded; every circuit open answers no_provider_available", () => {
    const health = new HealthStore();
    for (let i = 0; i < 3; i++) health.recordFailure("a/a-model", {}, NOW);
    expect(planned(run({ health }))).toEqual(["b/b-model", "c/c-model"]);
    for (const k of ["b/b-model", "c/c-model"]) for (let i = 0; i < 3; i++) health.recordFailure(k, {}, NOW);
    expect(run({ health })).toMatchObject({ ok: false, code: "no_provider_available" });
  });

  test("a half-open route is planned as a probe until its probe is taken", () => {
    const health = new HealthStore();
    for (let i = 0; i < 3; i++) health.recordFailure("a/a-model", {}, NOW - 30_000);
    const p = run({ health });
    if (!p.ok) throw new Error(p.code);
    expect(p.candidates.map((c) => [c.routeKey, c.circuit])).toEqual([
      ["a/a-model", "half_open"],
      ["b/b-model", "closed"],
      ["c/c-model", "closed"],
    ]);
    expect(health.tryAcquireProbe("a/a-model", NOW)).toBe(true);
    expect(planned(run({ health }))).toEqual(["b/b-model", "c/c-model"]);
  });

  test("every route serves both endpoints: a Responses-only route serves chat, a chat route serves Responses", () => {
    const mixed = model("acme/mixed", [
      route({ provider: "a", input: 1, output: 1, endpoints: ["responses"] }),
      route({ provider: "b", input: 2, output: 2, endpoints: ["chat_completions"] }),
    ]);
    expect(planned(run({ models: [mixed] }))).toEqual(["a/a-model", "b/b-model"]);
    expect(planned(run({ models: [mixed], endpoint: "responses" }))).toEqual(["a/a-model", "b/b-model"]);
    const only = model("acme/resp", [route({ provider: "a", input: 1, output: 1, endpoints: ["responses"] })]);
    expect(planned(run({ models: [only] }))).toEqual(["a/a-model"]);
  });
});
