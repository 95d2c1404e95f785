// Issue 8: two server processes on one Postgres database and one Redis behave as one gateway —
// revocations and budgets propagate within 5 s, rate limits and Idempotency-Keys are shared.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Redis from "ioredis";
import { postgresReachable } from "../../support/databases";
import { eventually } from "../../support/spawn";
import { scanKeys, startCluster, type Cluster } from "./cluster";

const DISCOVERY_PER_MINUTE = 8;
const reachable = await postgresReachable();

describe.skipIf(!reachable)("shared mode: two instances, one Postgres, one Redis", () => {
  let c: Cluster;
  const w = (p = "") => `/v1/workspaces/${c.workspaceId}${p}`;
  const chat = (node: number, model: string, key?: string) =>
    c.call(node, "POST", "/v1/chat/completions", { body: { model, messages: [{ role: "user", content: "hi" }] }, ...(key ? { key } : {}) });

  beforeAll(async () => {
    c = await startCluster({ limits: { discovery: { per_minute: DISCOVERY_PER_MINUTE } } });
  }, 30_000);
  afterAll(async () => {
    await c?.stop();
  });

  test("both instances report Redis up in /readyz", async () => {
    for (const node of [0, 1]) {
      const r = await c.call(node, "GET", "/readyz", { key: null });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ status: "ready", redis: { up: true } });
    }
  });

  test("a key revoked through A is refused by B within 5 s (pub/sub)", async () => {
    const created = await c.call(0, "POST", w("/api-keys"), { body: { name: "short-lived", scopes: ["usage:read"] } });
    expect(created.status).toBe(202);
    const key = created.json.key as string;
    // B has the key in its cache before the revocation.
    expect((await c.call(1, "GET", "/v1/me", { key })).status).toBe(200);
    const revokedAt = Date.now();
    expect((await c.call(0, "DELETE", w(`/api-keys/${created.json.api_key_id}`))).status).toBe(202);
    expect(await eventually(async () => (await c.call(1, "GET", "/v1/me", { key })).status === 401, 5_000, 25)).toBe(true);
    // The message, not B's 2 s re-check, did it.
    expect(Date.now() - revokedAt).toBeLessThan(1_500);
    expect((await c.call(0, "GET", "/v1/me", { key })).status).toBe(401);
  }, 10_000);

  test("a revocation no message announced (straight to Postgres) is enforced by B within 5 s, even on an idle key", async () => {
    const created = await c.call(0, "POST", w("/api-keys"), { body: { name: "missed", scopes: ["usage:read"] } });
    const key = created.json.key as string;
    expect((await c.call(1, "GET", "/v1/me", { key })).status).toBe(200);
    const revokedAt = Date.now();
    await c.sql.unsafe(`UPDATE "${c.schema}".api_keys SET revoked_at = $1 WHERE id = $2`, [revokedAt, created.json.api_key_id]);
    // The key is idle until just before the 5 s promise runs out: its very next use must be refused,
    // not served from the stale cache entry while a background re-check runs.
    await Bun.sleep(4_300 - (Date.now() - revokedAt));
    expect((await c.call(1, "GET", "/v1/me", { key })).status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(5_000);
  }, 10_000);

  test("a budget set through A is enforced by B, on spend made through A", async () => {
    const budget = await c.call(0, "POST", w("/budgets"), { body: { scope: "workspace", period: "monthly", limit: 0.0001 } });
    expect(budget.status).toBe(202);
    // $0.0001 = 100 µ$; a call costs 10 × $3/M + 5 × $15/M = 105 µ$: one call through A spends it all.
    expect((await chat(0, "acme/anthropic-only")).status).toBe(200);
    // The spend lands in the shared counter (settled just after the response)…
    const r = new Redis(c.redisUrl);
    try {
      const spent = async () => {
        const [key] = await scanKeys(r, `${c.prefix}budget:${budget.json.budget_id}:`);
        return key ? Number(await r.hget(key, "spent")) : 0;
      };
      expect(await eventually(async () => (await spent()) === 105, 5_000, 20)).toBe(true);
    } finally {
      r.disconnect();
    }
    // …so B, which learnt of the budget from A's message, refuses its very first call.
    const onB = await chat(1, "acme/anthropic-only");
    expect(onB.status).toBe(429);
    expect(onB.json.error.code).toBe("budget_exceeded");
    expect((await chat(0, "acme/anthropic-only")).json.error?.code).toBe("budget_exceeded");
    // The record's spend (from the request records A wrote) shows on B too.
    const spendOnB = async () => (await c.call(1, "GET", w(`/budgets/${budget.json.budget_id}`))).json.spend as number;
    expect(await eventually(async () => (await spendOnB()) === 0.000105, 5_000, 100)).toBe(true);
    // Deleting it through B lets A serve again.
    expect((await c.call(1, "DELETE", w(`/budgets/${budget.json.budget_id}`))).status).toBe(202);
    expect(await eventually(async () => (await chat(0, "acme/anthropic-only")).status === 200, 5_000, 100)).toBe(true);
  }, 20_000);

  test(`a rate limit of ${DISCOVERY_PER_MINUTE}/min is ${DISCOVERY_PER_MINUTE} across both instances, not twice that`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < DISCOVERY_PER_MINUTE * 3; i++)
      statuses.push((await c.call(i % 2, "GET", "/v1/byok/providers", { key: null })).status);
    const ok = statuses.filter((s) => s === 200).length;
    // The bucket refills one token per 7.5 s; the loop takes well under that.
    expect(ok).toBeGreaterThanOrEqual(DISCOVERY_PER_MINUTE);
    expect(ok).toBeLessThanOrEqual(DISCOVERY_PER_MINUTE + 1);
    expect(statuses.filter((s) => s === 429).length).toBe(statuses.length - ok);
    // Both instances refuse now, and the bucket is in Redis under the prefix, in the URL's database 5.
    expect((await c.call(0, "GET", "/v1/byok/providers", { key: null })).status).toBe(429);
    expect((await c.call(1, "GET", "/v1/byok/providers", { key: null })).status).toBe(429);
    const r = new Redis(c.redisUrl);
    try {
      expect((await scanKeys(r, `${c.prefix}rl:discovery:`)).length).toBeGreaterThan(0);
      await r.select(0);
      expect((await scanKeys(r, c.prefix)).length).toBe(0);
    } finally {
      r.disconnect();
    }
  });

  test("the same Idempotency-Key sent to A and B at once creates one BYOK key", async () => {
    // Validation with the provider takes a while, so both requests are in flight together.
    c.mock.setScript({ provider: "alpha", route: "models" }, { kind: "reply", delayMs: 400 });
    const body = { provider: "alpha", api_key: "sk-shared-idempotent-0123456789" };
    const headers = { "idempotency-key": `byok-${Date.now()}` };
    const [a, b] = await Promise.all([0, 1].map((n) => c.call(n, "POST", w("/byok-keys"), { body, headers })));
    const statuses = [a!.status, b!.status].sort();
    // One ran; the other saw it running (409) or, if it came second, replayed its answer.
    expect(statuses[0]).toBe(202);
    expect([202, 409]).toContain(statuses[1]!);
    const loser = a!.status === 409 ? a! : b!;
    if (loser.status === 409) expect(loser.json.error.code).toBe("idempotency_in_progress");
    else expect(a!.json.id).toBe(b!.json.id);
    const list = await c.call(1, "GET", w("/byok-keys"));
    expect(list.json.byok_keys.filter((k: { provider: string }) => k.provider === "alpha")).toHaveLength(1);
    // The retry after the first finished replays it on either instance.
    const again = await c.call(loser === a ? 0 : 1, "POST", w("/byok-keys"), { body, headers });
    expect(again.status).toBe(202);
    expect(again.json.id).toBe((a!.status === 202 ? a! : b!).json.id);
  }, 10_000);
});
