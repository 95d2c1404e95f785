import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { periodBounds } from "../../../src/metering/periods";
import { randomBase62 } from "../../../src/platform/ids";
import { openSession, type Session } from "./harness";

const kinds = await testDatabaseKinds();
const FIELDS = [
  "budget_id",
  "created_at",
  "enforce",
  "include_byok",
  "limit",
  "period",
  "period_end",
  "period_start",
  "propagation_status",
  "scope",
  "scope_id",
  "spend",
  "updated_at",
  "workspace_id",
].sort();

for (const kind of kinds) {
  describe(`budgets on ${kind}`, () => {
    let x: Session;
    /** What reached the live budget counters: an upserted definition, or a removed budget's ID. */
    const changes: { kind: "upserted" | "deleted"; budget: { id: string; limitMicrodollars?: number } }[] = [];
    beforeAll(async () => {
      x = await openSession(kind);
      // What the writes' events reach: the live budget counters (deps.ts wires them once, at start).
      const counters = x.s.deps.budgets;
      const upsert = counters.upsertBudget.bind(counters);
      const remove = counters.removeBudget.bind(counters);
      counters.upsertBudget = (def) => (changes.push({ kind: "upserted", budget: def }), upsert(def));
      counters.removeBudget = (id) => (changes.push({ kind: "deleted", budget: { id } }), remove(id));
    });
    afterAll(async () => {
      await x.stop();
    });

    const create = (body: unknown, headers?: Record<string, string>) => x.call("POST", x.w("/budgets"), { body, headers });

    test("create: 201 with the record; a second on the same scope and period is 409 budget_exists", async () => {
      const r = await create({ scope: "workspace", period: "daily", limit: 12.5 });
      expect(r.status).toBe(201);
      expect(Object.keys(r.json).sort()).toEqual(FIELDS);
      const day = periodBounds("daily", Date.now());
      expect(r.json).toMatchObject({
        scope: "workspace",
        scope_id: null,
        period: "daily",
        limit: 12.5,
        enforce: true,
        include_byok: false,
        spend: 0,
        period_start: new Date(day.start).toISOString(),
        period_end: new Date(day.end).toISOString(),
        propagation_status: null,
      });
      expect(changes.at(-1)).toMatchObject({ kind: "upserted", budget: { id: r.json.budget_id, limitMicrodollars: 12_500_000 } });
      const dup = await create({ scope: "workspace", period: "daily", limit: 99 });
      expect(dup.status).toBe(409);
      expect(dup.json.error).toMatchObject({ code: "budget_exists", type: "conflict_error" });
      expect((await create({ scope: "workspace", period: "weekly", limit: 50, enforce: false })).status).toBe(201);
      expect((await x.auditRows()).filter((a) => a.type === "budget.created")).toHaveLength(2);
    });

    test("api_key and byok scopes name something that exists (else 422 on scope_id)", async () => {
      const key = await x.call("POST", x.w("/api-keys"), { body: { name: "budgeted", scopes: ["usage:read"] } });
      const ok = await create({ scope: "api_key", scope_id: key.json.api_key_id, period: "monthly", limit: 1 });
      expect(ok.status).toBe(201);
      expect(ok.json.scope_id).toBe(key.json.api_key_id);
      expect((await create({ scope: "byok", scope_id: "alpha", period: "monthly", limit: 5 })).status).toBe(201);
      const cases: Record<string, unknown>[] = [
        { scope: "api_key", scope_id: crypto.randomUUID(), period: "daily", limit: 1 },
        { scope: "api_key", period: "daily", limit: 1 },
        { scope: "byok", scope_id: "beta", period: "daily", limit: 1 },
        { scope: "workspace", scope_id: "x", period: "monthly", limit: 1 },
      ];
      for (const body of cases) {
        const r = await create(body);
        expect(r.status).toBe(422);
        expect(r.json.error).toMatchObject({ code: "validation_error", param: "scope_id" });
      }
    });

    test("bad limit, scope or period is 422 naming the field; other malformed input 400", async () => {
      const cases: [Record<string, unknown>, number, string][] = [
        [{ scope: "workspace", period: "monthly", limit: 0 }, 422, "limit"],
        [{ scope: "workspace", period: "monthly", limit: -3 }, 422, "limit"],
        [{ scope: "workspace", period: "monthly", limit: "5" }, 422, "limit"],
        [{ scope: "workspace", period: "monthly", limit: 0.0000001 }, 422, "limit"],
        [{ scope: "workspace", period: "monthly" }, 422, "limit"],
        [{ scope: "team", period: "monthly", limit: 5 }, 422, "scope"],
        [{ scope: "workspace", period: "hourly", limit: 5 }, 422, "period"],
        [{ scope: "workspace", period: "monthly", limit: 5, enforce: "yes" }, 400, "enforce"],
        [{ scope: "workspace", period: "monthly", limit: 5, currency: "EUR" }, 400, "currency"],
      ];
      for (const [body, status, param] of cases) {
        const r = await create(body);
        expect(r.status).toBe(status);
        expect(r.json.error).toMatchObject({ code: status === 422 ? "validation_error" : "invalid_parameter", param });
      }
    });

    test("spend counts final attempts of the current period that match the scope", async () => {
      const key = await x.call("POST", x.w("/api-keys"), { body: { name: "spender", scopes: ["usage:read"] } });
      const id = key.json.api_key_id;
      const b = await create({ scope: "api_key", scope_id: id, period: "daily", limit: 10 });
      const bByok = await create({ scope: "api_key", scope_id: id, period: "weekly", limit: 10, include_byok: true });
      const now = Date.now();
      const yesterday = periodBounds("daily", now).start - 1;
      await x.insertRecords([
        { apiKeyId: id, costMicrodollars: 250_000, createdAt: now },
        { apiKeyId: id, costMicrodollars: 125_000, createdAt: now, isFinalAttempt: false, requestId: `req_${randomBase62(8)}` },
        { apiKeyId: id, costMicrodollars: 500_000, createdAt: now, apiKeySource: "byok" },
        { apiKeyId: id, costMicrodollars: 1_000_000, createdAt: yesterday },
        { apiKeyId: null, costMicrodollars: 7_000_000, createdAt: now },
      ]);
      const daily = await x.call("GET", x.w(`/budgets/${b.json.budget_id}`));
      expect(daily.status).toBe(200);
      expect(daily.json.spend).toBe(0.25);
      const weekly = await x.call("GET", x.w(`/budgets/${bByok.json.budget_id}`));
      const week = periodBounds("weekly", now);
      expect(new Date(weekly.json.period_start).getUTCDay()).toBe(1);
      expect(weekly.json.spend).toBe(yesterday >= week.start ? 1.75 : 0.75);
      const list = await x.call("GET", x.w("/budgets"));
      expect(list.json.count).toBe(list.json.budgets.length);
      expect(list.json.budgets.find((x: { budget_id: string }) => x.budget_id === b.json.budget_id).spend).toBe(0.25);
    });

    test("patch limit, enforce, include_byok; validation; 404s; delete 204", async () => {
      const b = await create({ scope: "byok", scope_id: "alpha", period: "daily", limit: 3 });
      const r = await x.call("PATCH", x.w(`/budgets/${b.json.budget_id}`), { body: { limit: 4.25, enforce: false, include_byok: true } });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ limit: 4.25, enforce: false, include_byok: true, scope: "byok", scope_id: "alpha" });
      expect(changes.at(-1)).toMatchObject({ kind: "upserted", budget: { id: b.json.budget_id, limitMicrodollars: 4_250_000 } });
      const bad = await x.call("PATCH", x.w(`/budgets/${b.json.budget_id}`), { body: { limit: 0 } });
      expect(bad.status).toBe(422);
      expect(bad.json.error.param).toBe("limit");
      // Scope and period are fixed at creation: patching them is a validation error on that field.
      const period = await x.call("PATCH", x.w(`/budgets/${b.json.budget_id}`), { body: { period: "weekly" } });
      expect(period.status).toBe(422);
      expect(period.json.error.param).toBe("period");
      const flag = await x.call("PATCH", x.w(`/budgets/${b.json.budget_id}`), { body: { enforce: 1 } });
      expect(flag.status).toBe(400);
      expect(flag.json.error.param).toBe("enforce");
      expect((await x.call("PATCH", x.w(`/budgets/${crypto.randomUUID()}`), { body: { limit: 1 } })).status).toBe(404);
      expect((await x.call("GET", x.w("/budgets/not-a-uuid"))).json.error.param).toBe("budget_id");
      const del = await x.call("DELETE", x.w(`/budgets/${b.json.budget_id}`));
      expect(del.status).toBe(204);
      expect(changes.at(-1)).toMatchObject({ kind: "deleted", budget: { id: b.json.budget_id } });
      expect((await x.call("GET", x.w(`/budgets/${b.json.budget_id}`))).status).toBe(404);
      expect((await x.call("DELETE", x.w(`/budgets/${b.json.budget_id}`))).status).toBe(404);
      const types = (await x.auditRows()).filter((a) => a.targetId === b.json.budget_id).map((a) => a.type);
      expect(types).toEqual(["budget.created", "budget.updated", "budget.deleted"]);
    });

    test("Idempotency-Key: replay returns the original status and body; other body 409; errors replay too", async () => {
      const key = `budget-${randomBase62(8)}`;
      const body = { scope: "workspace", period: "monthly", limit: 100 };
      const first = await create(body, { "idempotency-key": key });
      expect(first.status).toBe(201);
      const replay = await create({ limit: 100, period: "monthly", scope: "workspace" }, { "idempotency-key": key });
      expect(replay.status).toBe(201);
      expect(replay.json).toEqual(first.json);
      expect(
        (await x.call("GET", x.w("/budgets"))).json.budgets.filter(
          (b: { period: string; scope: string }) => b.period === "monthly" && b.scope === "workspace",
        ),
      ).toHaveLength(1);
      const conflict = await create({ ...body, limit: 200 }, { "idempotency-key": key });
      expect(conflict.status).toBe(409);
      expect(conflict.json.error.code).toBe("idempotency_conflict");
      // Without the key, the same body is a genuine second create: budget_exists.
      expect((await create(body)).json.error.code).toBe("budget_exists");
      const badKey = `bad-${randomBase62(8)}`;
      const invalid = await create({ scope: "workspace", period: "yearly", limit: 1 }, { "idempotency-key": badKey });
      expect(invalid.status).toBe(422);
      expect((await create({ scope: "workspace", period: "yearly", limit: 1 }, { "idempotency-key": badKey })).json).toEqual(invalid.json);
    });

    test("another workspace's budgets are invisible (404)", async () => {
      const other = await x.otherWorkspace();
      const theirs = await x.call("POST", `/v1/workspaces/${other.ws}/budgets`, {
        key: other.key,
        body: { scope: "workspace", period: "daily", limit: 1 },
      });
      expect(theirs.status).toBe(201);
      expect((await x.call("GET", x.w(`/budgets/${theirs.json.budget_id}`))).status).toBe(404);
      expect((await x.call("DELETE", x.w(`/budgets/${theirs.json.budget_id}`))).status).toBe(404);
      expect((await x.call("GET", `/v1/workspaces/${other.ws}/budgets`)).status).toBe(404);
    });
  });
}
