// The health view's body from the real HealthStore on a simulated clock: one row per route key (a route
// serving two models lists both), in key order, with rounded figures, ISO times and the circuit.
import { describe, expect, test } from "bun:test";
import { renderRoutingHealth } from "../../../src/management/routing-health/render";
import { HealthStore } from "../../../src/routing/health";
import type { Catalog, ModelEntry } from "../../../src/catalog/types";
import { model, providerMap, route } from "../routing/fixtures";

function catalog(models: ModelEntry[]): Catalog {
  const byId = new Map(models.map((m) => [m.id, m]));
  return { providers: providerMap("a", "b"), models: byId, resolve: (id) => byId.get(id), version: "t", generatedAt: 0 };
}

const shared = route({ provider: "b", id: "b-shared", input: 1, output: 1, ttft: 800, tps: 40 });
const cat = catalog([
  model("acme/two", [route({ provider: "a", input: 1, output: 1, ttft: 300, tps: 90 }), shared]),
  model("acme/one", [{ ...shared }]),
]);
const T0 = Date.UTC(2026, 11, 3, 12, 0, 0);

describe("renderRoutingHealth", () => {
  test("each route key once, sorted, with every model it serves; priors and no samples before any attempt", () => {
    const body = renderRoutingHealth(cat, new HealthStore(), T0);
    expect(body.count).toBe(2);
    expect(body.routes.map((r) => `${r.provider}/${r.provider_model_id}`)).toEqual(["a/a-model", "b/b-shared"]);
    expect(body.routes[1]!.models).toEqual(["acme/one", "acme/two"]);
    expect(body.routes[0]).toMatchObject({
      models: ["acme/two"],
      estimates: { ttft_ms: { p50: 300 }, throughput_tps: { p50: 90 } },
      samples: { ttft: 0, throughput: 0, outcomes: 0 },
      prior: { ttft_ms: 300, throughput_tps: 90, latency_hint: "" },
      success_rate: 1,
      attempts: { successes: 0, failures: 0 },
      circuit: { state: "closed", open_until: null, consecutive_failures: 0 },
      last_failure: null,
    });
  });

  test("samples move the estimates and fade with time; failures show as the last failure and an open circuit", () => {
    const health = new HealthStore({ failureThreshold: 2, cooldownMs: 30_000 });
    for (let i = 0; i < 5; i++) health.recordSuccess("a/a-model", { ttftMs: 100, tps: 150, latencyMs: 500 }, T0 + i);
    health.recordFailure("b/b-shared", { status: 503, code: "provider_error" }, T0 + 10);
    let [a, b] = renderRoutingHealth(cat, health, T0 + 20).routes;
    expect(a!.estimates.ttft_ms.p50).toBeLessThan(300);
    expect(a!.estimates.throughput_tps.p50).toBeGreaterThan(90);
    expect(a!.samples.ttft).toBeGreaterThan(1);
    expect(a!.samples.ttft).toBeLessThanOrEqual(5);
    expect(a!.attempts).toEqual({ successes: 5, failures: 0 });
    expect(b!.last_failure).toEqual({ at: new Date(T0 + 10).toISOString(), status: 503, code: "provider_error" });
    expect(b!.circuit).toEqual({ state: "closed", open_until: null, consecutive_failures: 1 });
    expect(b!.success_rate).toBeLessThan(1);

    health.recordFailure("b/b-shared", { status: 0, code: "provider_timeout" }, T0 + 30);
    b = renderRoutingHealth(cat, health, T0 + 40).routes[1];
    expect(b!.circuit).toEqual({ state: "open", open_until: new Date(T0 + 30 + 30_000).toISOString(), consecutive_failures: 2 });
    // Status 0: no HTTP answer (a timeout or a connection failure).
    expect(b!.last_failure).toMatchObject({ status: 0, code: "provider_timeout" });

    // An hour on (six half-lives of the default ten minutes), the samples weigh next to nothing.
    a = renderRoutingHealth(cat, health, T0 + 3_600_000).routes[0];
    expect(a!.samples.ttft).toBeLessThan(0.1);
    expect(a!.attempts.successes).toBe(5);
  });
});
