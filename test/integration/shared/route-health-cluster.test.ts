// Issue 54 item 7 end to end: two gateway processes in shared mode. A route that fails through one
// instance until its circuit opens is routed around by the other, which never sent it a request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { postgresReachable } from "../../support/databases";
import { eventually } from "../../support/spawn";
import { startCluster, type Cluster } from "./cluster";

const reachable = await postgresReachable();
const THRESHOLD = 3;

describe.skipIf(!reachable)("shared mode: one fleet, one view of route health", () => {
  let c: Cluster;
  // Strict cost: gamma (the cheapest) always leads the plan and nothing is explored.
  const chat = (node: number) =>
    c.call(node, "POST", "/v1/chat/completions", {
      body: { model: "acme/chat", messages: [{ role: "user", content: "hi" }], gateway: { routing: { optimize: "cost" } } },
    });
  const gammaCalls = () => c.mock.requests.filter((r) => r.route === "chat" && r.provider === "gamma").length;
  const routeHealth = async (node: number) => (await c.call(node, "GET", "/readyz", { key: null })).json.redis.routeHealth;

  beforeAll(async () => {
    c = await startCluster({ config: { circuit: { failure_threshold: THRESHOLD, cooldown_ms: 60_000 } } });
  }, 30_000);
  afterAll(async () => {
    await c?.stop();
  });

  test("gamma failing through instance 0 opens its circuit on instance 1, whose requests go straight to alpha", async () => {
    c.mock.setScript({ provider: "gamma", route: "chat" }, { kind: "error", status: 500 });
    for (let i = 0; i < THRESHOLD; i++) {
      const r = await chat(0);
      expect(r.status).toBe(200);
      expect(r.json.routing_metadata.provider).toBe("alpha");
      expect(r.json.routing_metadata.attempts.map((a: { provider: string }) => a.provider)).toContain("gamma");
    }
    expect(gammaCalls()).toBe(THRESHOLD);
    // Instance 0 has learnt it: its next request does not try gamma.
    expect((await chat(0)).json.routing_metadata.provider).toBe("alpha");
    expect(gammaCalls()).toBe(THRESHOLD);

    // Every upstream attempt so far (all through instance 0) is a sample instance 1 must have applied.
    const attempts = c.mock.requests.filter((r) => r.route === "chat").length;
    expect(await eventually(async () => (await routeHealth(1)).samplesApplied >= attempts, 5_000, 20)).toBe(true);

    // Instance 1's health view shows the failures it never saw itself.
    const health = await c.call(1, "GET", "/v1/routing/health");
    expect(health.status).toBe(200);
    const gamma = health.json.routes.find(
      (r: { provider: string; provider_model_id: string }) => r.provider === "gamma" && r.provider_model_id === "gamma-chat",
    );
    expect(gamma).toMatchObject({
      circuit: { state: "open" },
      attempts: { failures: THRESHOLD, successes: 0 },
      last_failure: { status: 500 },
    });

    for (let i = 0; i < 5; i++) {
      const r = await chat(1);
      expect(r.status).toBe(200);
      expect(r.json.routing_metadata.provider).toBe("alpha");
      expect(r.json.routing_metadata.attempts.map((a: { provider: string }) => a.provider)).not.toContain("gamma");
    }
    expect(gammaCalls()).toBe(THRESHOLD);
    // Instance 1's own successes travel the other way.
    expect(await eventually(async () => (await routeHealth(1)).samplesPublished >= 5, 5_000, 20)).toBe(true);
    expect(await eventually(async () => (await routeHealth(0)).samplesApplied >= 5, 5_000, 20)).toBe(true);
    expect((await routeHealth(0)).malformed + (await routeHealth(1)).malformed).toBe(0);
  }, 30_000);
});
