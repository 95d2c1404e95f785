// The adaptive router's rules (issue 54) on a simulated clock: latency_hint priors, time decay back to
// the prior, the exploration budget and its bounds, switching after a change, and the sticky lead.
import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../../src/catalog/build";
import { LATENCY_HINT_PRIORS } from "../../../src/catalog/providers";
import { planRoute, type PlanInput } from "../../../src/routing/candidates";
import { HealthStore } from "../../../src/routing/health";
import type { RequestRouting } from "../../../src/routing/types";
import { mulberry32 } from "../../../bench/routing/prng";
import { keys, model, providerMap, route } from "./fixtures";

const T0 = 1_800_000_000_000;

/** A seeded uniform source, so every run draws the same numbers (the routing bench's). */
const seeded = mulberry32;

function plan(input: Partial<PlanInput> & Pick<PlanInput, "models" | "health">, request?: RequestRouting) {
  const p = planRoute({
    providers: providerMap("a", "b", "c", "d"),
    hasCredential: () => true,
    endpoint: "chat_completions",
    now: T0,
    request,
    ...input,
  });
  if (!p.ok) throw new Error(`${p.code}: ${p.message}`);
  return p;
}

describe("priors", () => {
  const file = (hint?: "fast" | "normal" | "slow", extra: Record<string, number> = {}) => ({
    providers: { acme: { adapter: "openai" as const, base_url: "http://127.0.0.1:1/v1", api_key: "k" } },
    models: {
      "acme/m": {
        routes: [
          { provider: "acme", provider_model_id: "m", input_price: 1, output_price: 1, ...(hint ? { latency_hint: hint } : {}), ...extra },
        ],
      },
    },
  });
  const first = (f: ReturnType<typeof file>) => buildCatalog({ file: f, credentialEnv: {}, now: T0 }).resolve("acme/m")!.routes[0];

  test("latency_hint maps to the documented TTFT and throughput priors", () => {
    for (const hint of ["fast", "normal", "slow"] as const) {
      const r = first(file(hint));
      expect([r.latencyHint, r.ttftHintMs, r.tpsHint]).toEqual([hint, LATENCY_HINT_PRIORS[hint].ttftMs, LATENCY_HINT_PRIORS[hint].tps]);
    }
    expect(LATENCY_HINT_PRIORS.fast.ttftMs).toBeLessThan(LATENCY_HINT_PRIORS.normal.ttftMs);
    expect(LATENCY_HINT_PRIORS.normal.ttftMs).toBeLessThan(LATENCY_HINT_PRIORS.slow.ttftMs);
  });

  test("ttft_hint_ms and tps_hint override the hint; no hint is the provider's default", () => {
    const r = first(file("fast", { ttft_hint_ms: 55, tps_hint: 999 }));
    expect([r.ttftHintMs, r.tpsHint]).toEqual([55, 999]);
    expect(first(file()).ttftHintMs).toBe(LATENCY_HINT_PRIORS.normal.ttftMs);
  });

  test("a fast-hinted route leads a ttft plan before any measurement", () => {
    const f = file("slow");
    f.models["acme/m"].routes.push({
      provider: "acme",
      provider_model_id: "quick",
      input_price: 9,
      output_price: 9,
      latency_hint: "fast",
    } as never);
    const catalog = buildCatalog({ file: f, credentialEnv: {}, now: T0 });
    const p = plan(
      { models: [catalog.resolve("acme/m")!], providers: catalog.providers, health: new HealthStore({ exploreShare: 0 }) },
      { optimize: "ttft" },
    );
    expect(p.candidates[0].routeKey).toBe("acme/quick");
  });
});

describe("estimates follow the world", () => {
  const prior = { ttftMs: 800, tps: 60 };

  test("recent samples dominate: a route's TTFT follows a change within a few samples", () => {
    const h = new HealthStore();
    for (let i = 0; i < 50; i++) h.recordSuccess("k", { ttftMs: 80, latencyMs: 100 }, T0 + i);
    expect(h.estimate("k", prior, T0 + 50).ttftP50Ms).toBeLessThan(90);
    for (let i = 0; i < 5; i++) h.recordSuccess("k", { ttftMs: 650, latencyMs: 700 }, T0 + 60 + i);
    // Five samples move the median from 80 ms past 150 ms (the next route in a ttft ranking, say).
    expect(h.estimate("k", prior, T0 + 70).ttftP50Ms).toBeGreaterThan(150);
  });

  test("p95 sits above p50 for TTFT and below it for throughput, wider when samples scatter", () => {
    const h = new HealthStore();
    const draws = [100, 300, 120, 280, 90, 350, 110, 260];
    draws.forEach((v, i) => h.recordSuccess("k", { ttftMs: v, tps: v, latencyMs: v }, T0 + i));
    const e = h.estimate("k", prior, T0 + 10);
    expect(e.ttftP95Ms).toBeGreaterThan(e.ttftP50Ms * 1.3);
    expect(e.tpsP95).toBeLessThan(e.tpsP50 / 1.3);
  });

  test("in time, unmeasured samples fade: the estimate drifts back to the prior and its weight to zero", () => {
    const h = new HealthStore({ halfLifeMs: 60_000 });
    for (let i = 0; i < 10; i++) h.recordSuccess("k", { ttftMs: 100, latencyMs: 100 }, T0);
    const fresh = h.estimate("k", prior, T0);
    const hour = h.estimate("k", prior, T0 + 3_600_000);
    expect(fresh.ttftP50Ms).toBeLessThan(110);
    expect(hour.ttftSamples).toBeLessThan(1e-6);
    expect(hour.ttftP50Ms).toBeGreaterThan(700);
    // Half-way: one half-life halves the weight.
    expect(h.estimate("k", prior, T0 + 60_000).ttftSamples).toBeCloseTo(fresh.ttftSamples / 2, 6);
  });

  test("the success rate counts provider failures, recently weighted, and recovers in time", () => {
    const h = new HealthStore({ failureThreshold: 100, halfLifeMs: 60_000 });
    for (let i = 0; i < 10; i++) h.recordFailure("k", { status: 500 }, T0);
    expect(h.estimate("k", prior, T0).successRate).toBeLessThan(0.3);
    expect(h.estimate("k", prior, T0 + 3_600_000).successRate).toBeGreaterThan(0.99);
  });
});

describe("changes and recoveries", () => {
  const prior = { ttftMs: 800, tps: 60 };

  test("a stream's first token is a TTFT sample at once, without an outcome", () => {
    const h = new HealthStore();
    h.recordFirstToken("k", 120, T0);
    const e = h.estimate("k", prior, T0);
    expect(e.ttftSamples).toBe(1);
    expect(e.outcomeSamples).toBe(0);
    expect(e.ttftP50Ms).toBeLessThan(200);
  });

  test("a sample far outside the recent spread is a change: one such sample moves the median most of the way", () => {
    const h = new HealthStore();
    for (let i = 0; i < 30; i++) h.recordFirstToken("k", 650 * (1 + 0.05 * Math.sin(i)), T0 + i);
    h.recordFirstToken("k", 80, T0 + 40);
    expect(h.estimate("k", prior, T0 + 41).ttftP50Ms).toBeLessThan(150);
    // An ordinary sample (within the spread) moves it by the usual tenth or so.
    const g = new HealthStore();
    for (let i = 0; i < 30; i++) g.recordFirstToken("k", 650 * (1 + 0.2 * Math.sin(i)), T0 + i);
    g.recordFirstToken("k", 500, T0 + 40);
    expect(g.estimate("k", prior, T0 + 41).ttftP50Ms).toBeGreaterThan(600);
  });

  test("a half-open route is ranked as if reliable, so it leads the plan and gets probed; closing forgives its failures", () => {
    const duo = model("acme/duo", [
      route({ provider: "a", input: 1, output: 1, ttft: 100 }),
      route({ provider: "b", input: 1, output: 1, ttft: 300 }),
    ]);
    const health = new HealthStore({ exploreShare: 0, cooldownMs: 1_000 });
    for (let i = 0; i < 3; i++) health.recordFailure("a/a-model", { status: 500 }, T0);
    expect(keys(plan({ models: [duo], health, now: T0 + 10 }, { optimize: "ttft" }).candidates)).toEqual(["b/b-model"]);
    const probe = plan({ models: [duo], health, now: T0 + 1_000 }, { optimize: "ttft" });
    expect(probe.candidates[0]).toMatchObject({ routeKey: "a/a-model", circuit: "half_open" });
    expect(health.tryAcquireProbe("a/a-model", T0 + 1_000)).toBe(true);
    health.recordSuccess("a/a-model", { ttftMs: 100, latencyMs: 500 }, T0 + 1_100);
    expect(health.state("a/a-model", T0 + 1_100)).toBe("closed");
    expect(health.estimate("a/a-model", prior, T0 + 1_100).successRate).toBe(1);
    expect(plan({ models: [duo], health, now: T0 + 1_200 }, { optimize: "ttft" }).candidates[0].routeKey).toBe("a/a-model");
  });

  test("a degraded former best is re-checked with the budget and found again soon after it recovers", () => {
    const duo = model("acme/trio", [
      route({ provider: "a", input: 1, output: 1, ttft: 100 }),
      route({ provider: "b", input: 1, output: 1, ttft: 150 }),
      route({ provider: "c", input: 1, output: 1, ttft: 900 }),
    ]);
    const truth: Record<string, number> = { "a/a-model": 80, "b/b-model": 150, "c/c-model": 900 };
    const health = new HealthStore({ random: seeded(9) });
    let now = T0;
    const step = () => {
      now += 100;
      const p = plan({ models: [duo], health, now }, { optimize: "ttft" });
      const c = p.candidates[0];
      health.recordFirstToken(c.routeKey, truth[c.routeKey], now);
      health.recordSuccess(c.routeKey, { latencyMs: 1_000 }, now);
      return p.candidates[c.explored ? 1 : 0].routeKey;
    };
    for (let i = 0; i < 500; i++) step();
    truth["a/a-model"] = 650;
    for (let i = 0; i < 500; i++) step();
    expect(step()).toBe("b/b-model");
    truth["a/a-model"] = 80;
    let back = -1;
    for (let i = 0; i < 200 && back < 0; i++) if (step() === "a/a-model") back = i;
    expect(back).toBeGreaterThanOrEqual(0);
    expect(back).toBeLessThanOrEqual(40);
  });
});

describe("exploration", () => {
  const four = model("acme/four", [
    route({ provider: "a", input: 1, output: 1, ttft: 100, tps: 50 }),
    route({ provider: "b", input: 1, output: 1, ttft: 120, tps: 50 }),
    route({ provider: "c", input: 1, output: 1, ttft: 400, tps: 50 }),
    route({ provider: "d", input: 1, output: 1, ttft: 900, tps: 50 }),
  ]);
  const truth: Record<string, number> = { "a/a-model": 100, "b/b-model": 120, "c/c-model": 400, "d/d-model": 900 };

  function run(n: number, optimize: RequestRouting["optimize"], health: HealthStore, extra: RequestRouting = {}) {
    let explored = 0;
    const measured = new Set<string>();
    for (let i = 0; i < n; i++) {
      const now = T0 + i * 100;
      const p = plan({ models: [four], health, now }, { optimize, ...extra });
      const c = p.candidates[0];
      if (c.explored) explored++;
      measured.add(c.routeKey);
      health.recordSuccess(c.routeKey, { ttftMs: truth[c.routeKey], tps: 50, latencyMs: truth[c.routeKey] + 500 }, now);
    }
    return { explored, measured };
  }

  test("every eligible route is measured early, and explorations stay within the share", () => {
    const health = new HealthStore({ random: seeded(1), exploreShare: 0.05 });
    const { explored, measured } = run(2_000, "ttft", health);
    expect(measured.size).toBe(4);
    expect(explored).toBeGreaterThan(0);
    // The budget: at most share × plans (no credit is banked beyond one exploration).
    expect(explored).toBeLessThanOrEqual(0.05 * 2_000);
  });

  test("strict cost never explores; explore_share 0 never explores", () => {
    expect(run(500, "cost", new HealthStore({ random: seeded(2) })).explored).toBe(0);
    expect(run(500, "ttft", new HealthStore({ random: seeded(2), exploreShare: 0 })).explored).toBe(0);
  });

  test("exploration never breaks a ceiling and never tries an open circuit", () => {
    const health = new HealthStore({ random: seeded(3), failureThreshold: 1, cooldownMs: 10_000_000 });
    health.recordFailure("c/c-model", { status: 500 }, T0);
    for (let i = 0; i < 1_000; i++) {
      const now = T0 + i * 100;
      const p = plan({ models: [four], health, now }, { optimize: "ttft", maxTtftMs: 500 });
      expect(keys(p.candidates)).not.toContain("c/c-model");
      const c = p.candidates[0];
      health.recordSuccess(c.routeKey, { ttftMs: truth[c.routeKey], latencyMs: 1_000 }, now);
      if (c.routeKey === "d/d-model") throw new Error("served over the TTFT ceiling");
    }
  });

  test("after the best route degrades, the first choice follows within 25 requests", () => {
    const health = new HealthStore({ random: seeded(4) });
    run(300, "ttft", health);
    truth["a/a-model"] = 650;
    let firstOnB = -1;
    for (let i = 0; i < 100 && firstOnB < 0; i++) {
      const now = T0 + 300_000 + i * 100;
      const c = plan({ models: [four], health, now }, { optimize: "ttft" }).candidates[0];
      if (c.routeKey === "b/b-model" && !c.explored) firstOnB = i;
      health.recordSuccess(c.routeKey, { ttftMs: truth[c.routeKey], latencyMs: 1_000 }, now);
    }
    truth["a/a-model"] = 100;
    expect(firstOnB).toBeGreaterThanOrEqual(0);
    expect(firstOnB).toBeLessThanOrEqual(25);
  });
});

describe("the routing options", () => {
  const duo = model("acme/duo", [
    route({ provider: "a", input: 1, output: 1, ttft: 300, tps: 40 }),
    route({ provider: "b", input: 2, output: 2, ttft: 900, tps: 200 }),
  ]);
  const fresh = () => new HealthStore({ exploreShare: 0 });
  const fails = (p: ReturnType<typeof planRoute>) => (p.ok ? null : p);

  test("min_throughput_tps at p50 or p95; ttft ceilings at p50 or p95", () => {
    const health = fresh();
    [150, 300, 600].forEach((v, i) => health.recordSuccess("a/a-model", { ttftMs: v, latencyMs: v }, T0 + i));
    expect(keys(plan({ models: [duo], health }, { minThroughputTps: 100 }).candidates)).toEqual(["b/b-model"]);
    expect(keys(plan({ models: [duo], health }, { maxTtftMs: 500, optimize: "cost" }).candidates)).toEqual(["a/a-model"]);
    const p95 = fails(
      planRoute({
        models: [duo],
        providers: providerMap("a", "b"),
        hasCredential: () => true,
        health,
        endpoint: "chat_completions",
        now: T0 + 5,
        request: { maxTtftMs: 500, ttftPercentile: "p95" },
      }),
    );
    expect(p95).toMatchObject({ code: "no_eligible_route", constraint: "max_ttft_ms", param: "gateway.routing.max_ttft_ms" });
  });

  test("min_success_rate drops a route that fails; never-measured routes pass", () => {
    const health = new HealthStore({ exploreShare: 0, failureThreshold: 100 });
    for (let i = 0; i < 5; i++) health.recordFailure("a/a-model", { status: 500 }, T0);
    expect(keys(plan({ models: [duo], health }, { minSuccessRate: 0.9 }).candidates)).toEqual(["b/b-model"]);
  });

  test("prefer is soft: a preferred route close to the best leads, a far one does not", () => {
    const close = model("acme/close", [route({ provider: "a", input: 1, output: 1 }), route({ provider: "b", input: 1.05, output: 1.05 })]);
    expect(plan({ models: [close], health: fresh() }, { optimize: "cost", prefer: ["b"] }).candidates[0].routeKey).toBe("b/b-model");
    expect(plan({ models: [duo], health: fresh() }, { optimize: "cost", prefer: ["b"] }).candidates[0].routeKey).toBe("a/a-model");
  });

  test("per-request providers narrow the workspace's list and exclude_providers adds to it", () => {
    expect(keys(plan({ models: [duo], health: fresh() }, { providers: ["b"] }).candidates)).toEqual(["b/b-model"]);
    expect(keys(plan({ models: [duo], health: fresh() }, { excludeProviders: ["a"] }).candidates)).toEqual(["b/b-model"]);
    const none = planRoute({
      models: [duo],
      providers: providerMap("a", "b"),
      hasCredential: () => true,
      health: fresh(),
      endpoint: "chat_completions",
      now: T0,
      defaults: { providers: ["a"] },
      request: { providers: ["b"] },
    });
    expect(fails(none)).toMatchObject({ constraint: "providers", param: "gateway.routing.providers" });
  });

  test("only_byok and only_platform keep the routes paid that way and say whose key pays", () => {
    const credential = (p: string, choice: "any" | "byok" | "platform") => {
      const byok = p === "a";
      if (choice === "byok") return byok ? "byok" : null;
      if (choice === "platform") return p === "b" ? "platform" : null;
      return byok ? "byok" : "platform";
    };
    const base = { models: [duo], health: fresh(), credential, hasCredential: undefined };
    const byok = plan(base, { credential: "byok" });
    expect(keys(byok.candidates)).toEqual(["a/a-model"]);
    expect(byok.candidates[0].keySource).toBe("byok");
    const platform = plan(base, { credential: "platform" });
    expect(keys(platform.candidates)).toEqual(["b/b-model"]);
    expect(platform.candidates[0].keySource).toBe("platform");
    const none = planRoute({
      ...base,
      providers: providerMap("a", "b"),
      endpoint: "chat_completions",
      now: T0,
      credential: () => null,
      request: { credential: "byok" },
    });
    expect(fails(none)).toMatchObject({ constraint: "only_byok", param: "gateway.routing.only_byok" });
  });

  test("the sticky route leads when eligible, and a constraint that forbids it wins", () => {
    const health = new HealthStore({ random: seeded(5), exploreShare: 0.5 });
    const p = plan({ models: [duo], health, stickyRouteKey: "b/b-model" }, { optimize: "cost" });
    expect(keys(p.candidates)).toEqual(["b/b-model", "a/a-model"]);
    expect([p.candidates[0].sticky, p.candidates[0].explored]).toEqual([true, false]);
    const forbidden = plan({ models: [duo], health, stickyRouteKey: "b/b-model" }, { optimize: "cost", excludeProviders: ["b"] });
    expect(keys(forbidden.candidates)).toEqual(["a/a-model"]);
    expect(forbidden.candidates[0].sticky).toBe(false);
  });
});
