// Metering and limits through the real server: exact accounting under concurrency and failures,
// budgets under concurrency, rate limits, and a database that goes away during traffic.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database as BunSqlite } from "bun:sqlite";
import { startGateway, type TestGateway } from "../../support/gateway";
import { GENEROUS_LIMITS } from "../../support/server";
import { eventually } from "../../support/spawn";

type Rec = {
  requestId: string;
  attempt: number;
  isFinalAttempt: boolean;
  success: boolean;
  costMicrodollars: number;
  apiKeySource: string | null;
};
async function records(g: TestGateway): Promise<Rec[]> {
  await g.s.deps.records.flush();
  return (await g.s.deps.db.orm.select().from(g.s.deps.db.t.requestRecords)) as Rec[];
}
const chat = (g: TestGateway, body: Record<string, unknown> = {}) =>
  g.s.fetch("/v1/chat/completions", {
    method: "POST",
    body: JSON.stringify({
      model: "acme/chat",
      messages: [{ role: "user", content: "hi" }],
      gateway: { routing: { optimize: "cost" } },
      ...body,
    }),
  });
const balance = async (g: TestGateway) =>
  ((await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/billing/balance`)).json()) as { balance_microdollars: number })
    .balance_microdollars;

describe("exact accounting under concurrency", () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startGateway({ config: { circuit: { failure_threshold: 1000 } } });
  });
  afterAll(() => g.stop());

  test("200 concurrent requests with 10% of upstream calls failing: every attempt recorded once, usage = records, credits moved by the final costs", async () => {
    await g.s.deps.credits.add(g.s.workspaceId, 1_000_000, "test_top_up");
    const before = await balance(g);
    let n = 0;
    // Every 10th call to the first-choice provider fails; the fallback then serves it.
    g.mock.setScript((req) => req.provider === "gamma" && n++ % 10 === 0, { kind: "error", status: 500 });
    const results = await Promise.all(Array.from({ length: 200 }, () => chat(g).then((r) => r.status)));
    expect(results.filter((s) => s !== 200)).toEqual([]);
    const recs = await records(g);
    const keys = new Set(recs.map((r) => `${r.requestId}#${r.attempt}`));
    expect(keys.size).toBe(recs.length);
    expect(recs.filter((r) => r.isFinalAttempt)).toHaveLength(200);
    expect(recs.length).toBe(g.mock.requests.filter((r) => r.route === "chat").length);
    const finalCost = recs.filter((r) => r.isFinalAttempt).reduce((a, r) => a + r.costMicrodollars, 0);
    expect(finalCost).toBeGreaterThan(0);
    // The usage aggregate equals the sum of the records.
    const day = new Date().toISOString().slice(0, 10);
    const usage = (await (
      await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/usage?group_by=provider&start_date=${day}&end_date=${day}`)
    ).json()) as { total: { requests: number; cost_microdollars: number } };
    expect(usage.total.requests).toBe(200);
    expect(usage.total.cost_microdollars).toBe(finalCost);
    // The balance moved by exactly the final attempts' costs (in memory at once, and in the ledger).
    expect(g.s.deps.credits.balance(g.s.workspaceId)).toBe(before - finalCost);
    expect(await eventually(async () => (await balance(g)) === before - finalCost, 3_000)).toBe(true);
  });
});

describe("client-chosen request ids", () => {
  test("a reused X-Request-ID is recorded and charged every time (records are keyed by a server id)", async () => {
    const g = await startGateway();
    try {
      await g.s.deps.credits.add(g.s.workspaceId, 1_000_000, "test_top_up");
      const before = await balance(g);
      for (let i = 0; i < 2; i++) {
        const r = await g.s.fetch("/v1/chat/completions", {
          method: "POST",
          headers: { "x-request-id": "same-id-twice" },
          body: JSON.stringify({ model: "acme/openai-only", messages: [{ role: "user", content: "hi" }] }),
        });
        expect(r.status).toBe(200);
        expect(r.headers.get("x-request-id")).toBe("same-id-twice");
      }
      const recs = (await records(g)).filter((r) => r.requestId === "same-id-twice");
      expect(recs).toHaveLength(2);
      const cost = recs.reduce((a, r) => a + r.costMicrodollars, 0);
      expect(cost).toBe(40);
      expect(await eventually(async () => (await balance(g)) === before - cost, 3_000)).toBe(true);
    } finally {
      await g.stop();
    }
  });
});

describe("budgets under concurrency", () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startGateway();
  });
  afterAll(() => g.stop());

  test("a workspace budget of two cents under 50 concurrent requests: spend passes the limit by no more than the reservations in flight; later requests get 429", async () => {
    const created = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/budgets`, {
      method: "POST",
      body: JSON.stringify({ scope: "workspace", period: "daily", limit: 0.02 }),
    });
    expect(created.status).toBe(201);
    // Each answer costs 1000 × $0.5/1M + 2000 × $1.5/1M = 3,500 µ$; each reservation is at most
    // ~6,200 µ$ (the prompt plus 4,096 output tokens), so at most 4 are admitted at once under 20,000 µ$.
    g.mock.setScript({ route: "chat" }, { kind: "reply", usage: { input: 1000, output: 2000 }, delayMs: 20 });
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () => chat(g).then(async (r) => ({ status: r.status, body: await r.text() }))),
    );
    const ok = statuses.filter((s) => s.status === 200).length;
    const refused = statuses.filter((s) => s.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.body).toContain("budget_exceeded");
    expect(refused[0]!.body).toContain("daily");
    // Then, one at a time, until the budget refuses (a bounded loop): spend has reached the limit by then.
    let more = 0;
    for (let i = 0; i < 20; i++) {
      const r = await chat(g);
      if (r.status === 429) break;
      more++;
    }
    const spend = (await records(g)).filter((r) => r.isFinalAttempt && r.success).reduce((a, r) => a + r.costMicrodollars, 0);
    expect(spend).toBe((ok + more) * 3500);
    expect(spend).toBeGreaterThanOrEqual(20_000);
    expect(spend - 20_000).toBeLessThanOrEqual(4 * 3500);
    expect((await chat(g)).status).toBe(429);
    const b = (await (await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/budgets`)).json()) as { budgets: { spend: number }[] };
    expect(b.budgets[0]!.spend).toBeCloseTo(spend / 1e6, 6);
  });

  test("after a fallback, the cost counts against the budgets of the route that served it", async () => {
    const g2 = await startGateway();
    try {
      const key = await g2.s.fetch(`/v1/workspaces/${g2.s.workspaceId}/byok-keys`, {
        method: "POST",
        body: JSON.stringify({ provider: "alpha", api_key: "sk-byok-alpha-0123456789" }),
      });
      expect(key.status).toBe(201);
      const b = await g2.s.fetch(`/v1/workspaces/${g2.s.workspaceId}/budgets`, {
        method: "POST",
        body: JSON.stringify({ scope: "byok", scope_id: "alpha", period: "daily", limit: 10 }),
      });
      expect(b.status).toBe(201);
      const budgetId = ((await b.json()) as { budget_id: string }).budget_id;
      // The reservation is made for gamma (platform, cheapest); gamma fails and alpha's BYOK key serves.
      g2.mock.setScript({ provider: "gamma" }, { kind: "error", status: 500 });
      const r = await chat(g2);
      expect(r.status).toBe(200);
      const meta = ((await r.json()) as { routing_metadata: { provider: string; cost: { microdollars: number } } }).routing_metadata;
      expect(meta.provider).toBe("alpha");
      expect(await g2.s.deps.budgets.spend(budgetId)).toBe(meta.cost.microdollars);
    } finally {
      await g2.stop();
    }
  });

  test("budget headers appear on chat success when such budgets exist", async () => {
    const g2 = await startGateway();
    try {
      await g2.s.fetch(`/v1/workspaces/${g2.s.workspaceId}/budgets`, {
        method: "POST",
        body: JSON.stringify({ scope: "workspace", period: "monthly", limit: 50 }),
      });
      const r = await chat(g2);
      expect(r.status).toBe(200);
      expect(r.headers.get("x-budget-monthly-limit")).toBe("50.00");
      expect(r.headers.get("x-budget-monthly-spend")).toMatch(/^\d+\.\d+$/);
      expect(r.headers.get("x-budget-daily-limit")).toBeNull();
      expect(r.headers.get("x-credits-balance-microdollars")).toMatch(/^-?\d+$/);
    } finally {
      await g2.stop();
    }
  });
});

describe("credits and rate limits", () => {
  test("with credits.enforce a platform-key request on a non-positive balance is 429 insufficient_credits before any upstream call", async () => {
    const g = await startGateway({ config: { credits: { enforce: true } } });
    try {
      const r = await chat(g);
      expect(r.status).toBe(429);
      expect(((await r.json()) as { error: { code: string; type: string } }).error).toMatchObject({
        code: "insufficient_credits",
        type: "insufficient_quota",
      });
      expect(g.mock.requests).toHaveLength(0);
      await g.s.deps.credits.add(g.s.workspaceId, 1_000, "top_up");
      expect((await chat(g)).status).toBe(200);
    } finally {
      await g.stop();
    }
  });

  test("credits are checked per attempt: with no balance, platform routes are skipped and a BYOK route serves", async () => {
    const g = await startGateway({ config: { credits: { enforce: true } } });
    try {
      const created = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/byok-keys`, {
        method: "POST",
        body: JSON.stringify({ provider: "alpha", api_key: "sk-byok-alpha-0123456789" }),
      });
      expect(created.status).toBe(201);
      // gamma (platform, cheapest) is skipped for want of credit; alpha is served with the workspace's key.
      const r = await chat(g);
      expect(r.status).toBe(200);
      expect(((await r.json()) as { routing_metadata: { provider: string } }).routing_metadata.provider).toBe("alpha");
      const sent = g.mock.requests.filter((x) => x.route === "chat");
      expect(sent.map((x) => x.provider)).toEqual(["alpha"]);
      expect(sent[0]!.headers.authorization).toBe("Bearer sk-byok-alpha-0123456789");
      // A model with only platform routes is refused before any upstream call.
      const refused = await chat(g, { model: "acme/gemini-only" });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("insufficient_credits");
    } finally {
      await g.stop();
    }
  });

  test("a burst over the inference limit gets 429 with Retry-After, and honouring it succeeds", async () => {
    const g = await startGateway({ config: { limits: { ...GENEROUS_LIMITS, inference: { per_minute: 60, burst: 3 } } } });
    try {
      const rs = await Promise.all(Array.from({ length: 5 }, () => chat(g)));
      const ok = rs.filter((r) => r.status === 200);
      const limited = rs.filter((r) => r.status === 429);
      expect(ok.length).toBe(3);
      expect(limited.length).toBe(2);
      expect(ok[0]!.headers.get("x-ratelimit-limit-requests")).toBe("60");
      expect(new Date(ok[0]!.headers.get("x-ratelimit-reset-requests")!).getTime()).toBeGreaterThan(Date.now() - 1000);
      const retryAfter = Number(limited[0]!.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(((await limited[0]!.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
      await Bun.sleep(retryAfter * 1000);
      expect((await chat(g)).status).toBe(200);
    } finally {
      await g.stop();
    }
  });
});

describe("the database going away during traffic", () => {
  test("SQLite locked by another connection for a while: requests keep being answered, records are written afterwards, none lost or duplicated", async () => {
    const g = await startGateway();
    try {
      expect((await chat(g)).status).toBe(200);
      const path = g.s.deps.config.databaseUrl.slice("sqlite:".length);
      const other = new BunSqlite(path);
      other.run("BEGIN EXCLUSIVE");
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await chat(g)).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(await eventually(() => !g.s.deps.records.status().healthy, 5_000)).toBe(true);
      other.run("COMMIT");
      other.close();
      expect(await eventually(async () => (await records(g)).length === 21, 10_000)).toBe(true);
      const recs = await records(g);
      expect(new Set(recs.map((r) => r.requestId)).size).toBe(21);
    } finally {
      await g.stop();
    }
  }, 30_000);
});
