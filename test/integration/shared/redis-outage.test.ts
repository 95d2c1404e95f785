// Issue 8: Redis stopped during traffic and started again. Both instances keep answering on local
// buckets (and say so in /readyz), writes still land in Postgres, and once Redis is back the shared
// limits and invalidation messages work again. Uses a private redis-server it can kill.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { postgresReachable } from "../../support/databases";
import { eventually } from "../../support/spawn";
import { privateRedis, startCluster, type Cluster, type PrivateRedis } from "./cluster";

const PER_MINUTE = 6;
const reachable = await postgresReachable();

describe.skipIf(!reachable)("shared mode: Redis goes away and comes back", () => {
  let redis: PrivateRedis;
  let c: Cluster;
  const w = (p = "") => `/v1/workspaces/${c.workspaceId}${p}`;
  const readiness = async (node: number) => (await c.call(node, "GET", "/readyz", { key: null })).json.status as string;
  const bothAre = (status: string) => eventually(async () => (await readiness(0)) === status && (await readiness(1)) === status, 8_000, 50);
  const discoveryBurst = async (n: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await c.call(i % 2, "GET", "/v1/byok/providers", { key: null })).status);
    return statuses;
  };

  beforeAll(async () => {
    redis = await privateRedis();
    await redis.start();
    c = await startCluster({ redisUrl: redis.url, limits: { discovery: { per_minute: PER_MINUTE } } });
  }, 30_000);
  afterAll(async () => {
    await c?.stop();
    await redis?.stop();
  });

  test("both instances keep answering through the outage, degraded, and rejoin afterwards", async () => {
    expect(await bothAre("ready")).toBe(true);
    // Traffic on both instances for the whole test: inference and an authenticated read.
    let running = true;
    const seen: number[] = [];
    const traffic = (async () => {
      for (let i = 0; running; i++) {
        const node = i % 2;
        const r =
          i % 4 < 2
            ? await c.call(node, "POST", "/v1/chat/completions", {
                body: { model: "acme/openai-only", messages: [{ role: "user", content: "hi" }] },
              })
            : await c.call(node, "GET", "/v1/me");
        seen.push(r.status);
      }
    })();

    expect(await eventually(() => seen.length >= 4, 5_000, 10)).toBe(true);
    await redis.stop();
    const atStop = seen.length;
    expect(await bothAre("degraded")).toBe(true);
    const during = await c.call(1, "GET", "/readyz", { key: null });
    expect(during.status).toBe(200);
    expect(during.json.redis.up).toBe(false);
    expect(during.json.reasons.join(" ")).toContain("redis unreachable");
    // A write during the outage lands in Postgres and is usable on the other instance.
    const created = await c.call(0, "POST", w("/api-keys"), { body: { name: "during-outage", scopes: ["usage:read"] } });
    expect(created.status).toBe(202);
    expect((await c.call(1, "GET", "/v1/me", { key: created.json.key })).status).toBe(200);
    // Limits still apply, per instance: never an error, and each instance refuses past its own allowance.
    const local = await discoveryBurst(PER_MINUTE * 4);
    expect(local.every((s) => s === 200 || s === 429)).toBe(true);
    expect(local.filter((s) => s === 200).length).toBeLessThanOrEqual(PER_MINUTE * 2 + 2);
    expect(local.filter((s) => s === 429).length).toBeGreaterThan(0);
    const servedDuring = seen.length;
    expect(servedDuring).toBeGreaterThan(atStop);

    await redis.start();
    expect(await bothAre("ready")).toBe(true);
    running = false;
    await traffic;
    expect(seen.length).toBeGreaterThan(servedDuring);
    expect(seen.filter((s) => s !== 200)).toEqual([]);

    // Shared again: the (fresh, empty) Redis buckets give PER_MINUTE across both, not twice that.
    const shared = await discoveryBurst(PER_MINUTE * 3);
    const ok = shared.filter((s) => s === 200).length;
    expect(ok).toBeGreaterThanOrEqual(PER_MINUTE);
    expect(ok).toBeLessThanOrEqual(PER_MINUTE + 1);

    // And invalidation messages flow again: a revocation through A reaches B at once (B's cache entry
    // is fresh, so its own 2 s re-check cannot be what refuses it).
    expect((await c.call(1, "GET", "/v1/me", { key: created.json.key })).status).toBe(200);
    const revokedAt = Date.now();
    expect((await c.call(0, "DELETE", w(`/api-keys/${created.json.api_key_id}`))).status).toBe(202);
    expect(await eventually(async () => (await c.call(1, "GET", "/v1/me", { key: created.json.key })).status === 401, 5_000, 25)).toBe(
      true,
    );
    expect(Date.now() - revokedAt).toBeLessThan(1_500);
  }, 40_000);
});
