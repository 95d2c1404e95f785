// Shared admission (redis-reservations.ts) against the real Redis: a call's credit hold and budget
// reservations in one script, atomically, and the ends of many calls in one batched settle. Two
// objects on one prefix stand for two instances; the Redis commands sent are counted by wrapping the
// client's sendCommand.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { BudgetDef, SpendContext } from "../../../src/metering/budgets";
import { writeBatch } from "../../../src/metering/record-batch";
import { RedisAdmission } from "../../../src/metering/redis-admission";
import { RedisBudgetCounters } from "../../../src/metering/redis-budgets";
import { RedisCreditHolds } from "../../../src/metering/redis-credit-holds";
import { RedisReservations } from "../../../src/metering/redis-reservations";
import { SettleQueue } from "../../../src/metering/redis-settle-queue";
import { SpendView } from "../../../src/metering/redis-spend-view";
import type { Held, Reserved } from "../../../src/metering/reservations";
import { randomBase62 } from "../../../src/platform/ids";
import { createLogger } from "../../../src/platform/logger";
import { RedisConnection } from "../../../src/platform/redis";
import { eventually } from "../../support/spawn";
import { makeRecord, openTestDb, type TestDb } from "../metering/test-db";
import { SHARED_REDIS } from "./cluster";
import { commandsSent } from "./commands-sent";
import { startInstances, stopInstances } from "./redis-instances";

const logs: string[] = [];
const logger = createLogger("debug", (l) => logs.push(l));
const prefix = `switchyard-test-${randomBase62(10)}:`;
const url = `${SHARED_REDIS}/6`;
let one: RedisConnection;
let two: RedisConnection;
/** Nothing listens on port 1: a connection that is down from the start. */
let down: RedisConnection;

beforeAll(async () => ({ one, two, down } = await startInstances(url, prefix, logger)));
afterAll(() => stopInstances({ one, two, down }, url, prefix));

const held = (r: Reserved): Held => {
  if (!r.ok) throw new Error(`expected an admission, got ${r.code}`);
  return r.held;
};

/** One instance's stores as shared mode wires them: one admission for the budgets and the credit holds. */
function instance(conn: RedisConnection, db: TestDb["db"], settle: { windowMs?: number; maxOps?: number } = {}) {
  const admission = new RedisAdmission(conn, logger, 60_000, settle);
  const budgets = new RedisBudgetCounters(conn, db, logger, { admission });
  const holds = new RedisCreditHolds(conn, logger, 60_000, admission);
  return { admission, budgets, holds, reservations: new RedisReservations(holds, budgets) };
}

describe("RedisReservations", () => {
  let t: TestDb;
  let ws: string;
  let ctx: SpendContext;
  const def = (over: Partial<BudgetDef> = {}): BudgetDef => ({
    id: crypto.randomUUID(),
    workspaceId: ws,
    scope: "workspace",
    scopeId: "",
    period: "daily",
    limitMicrodollars: 1000,
    enforce: true,
    includeByok: false,
    ...over,
  });
  /** The fields of the budget's period hash (the only one of its budget in these tests). */
  const budgetHash = async (d: BudgetDef) => {
    const [key] = await one.client.keys(`${prefix}budget:${d.id}:*`);
    return key ? one.client.hgetall(key) : {};
  };
  const creditHash = (a: ReturnType<typeof instance>) => one.client.hgetall(a.holds.keyOf(ws));

  beforeEach(async () => {
    t = await openTestDb("sqlite");
    ws = `ws_${randomBase62(8)}`;
    ctx = { workspaceId: ws, apiKeyId: "key1", provider: "alpha", byok: false };
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test("a call with credits enforced and a budget sends one script before the answer; its end one more", async () => {
    const a = instance(one, t.db);
    const d = def();
    await a.budgets.upsertBudget(d);
    // Seeds the period and loads the script: what follows is the steady state.
    await a.reservations.release(held(await a.reservations.reserve(ctx, 10, { balance: 1000, required: true })));
    let h: Held | undefined;
    const before = await commandsSent(one, async () => {
      h = held(await a.reservations.reserve(ctx, 300, { balance: 1000, required: true }));
    });
    expect(before).toEqual(["evalsha"]);
    expect(h!.hold).not.toBeNull();
    // Both taken by that one script, under the same id.
    expect(await creditHash(a)).toHaveProperty(`h:${h!.reservation.id}`);
    expect(await budgetHash(d)).toHaveProperty(`r:${h!.reservation.id}`);
    const after = await commandsSent(one, () => Promise.resolve(a.reservations.settle(h!, 250, ctx)));
    expect(after).toEqual(["evalsha"]);
    expect(await creditHash(a)).toEqual({});
    expect(await budgetHash(d)).toEqual({ spent: "250" });
    // The budget headers come from what the scripts answered: no read of their own.
    let headers: Record<string, string> = {};
    expect(await commandsSent(one, async () => void (headers = await a.budgets.headers(ws, "key1")))).toEqual([]);
    expect(headers).toEqual({ "X-Budget-Daily-Spend": "0.00025", "X-Budget-Daily-Limit": "0.001" });
  });

  test("the headers show another instance's spend once this one hears from Redis, and within a second anyway", async () => {
    const a = instance(one, t.db);
    const b = instance(two, t.db);
    const d = def();
    await Promise.all([a.budgets.upsertBudget(d), b.budgets.upsertBudget(d)]);
    await a.reservations.settle(held(await a.reservations.reserve(ctx, 100, null)), 100, ctx);
    await b.reservations.settle(held(await b.reservations.reserve(ctx, 100, null)), 300, ctx);
    const spendOnA = async () => (await a.budgets.headers(ws, "key1"))["X-Budget-Daily-Spend"];
    expect(await spendOnA()).toBe("0.0001");
    // A's next admission script answers the shared spend.
    const next = held(await a.reservations.reserve(ctx, 10, null));
    expect(await spendOnA()).toBe("0.0004");
    await a.reservations.release(next);
    await b.reservations.settle(held(await b.reservations.reserve(ctx, 100, null)), 100, ctx);
    // Without one, A reads Redis once its value is a second old.
    expect(await eventually(async () => (await spendOnA()) === "0.0005", 3_000, 50)).toBe(true);
  });

  test("the ends of many calls go to Redis together: 20 settled calls take one round trip", async () => {
    const a = instance(one, t.db);
    const d = def({ limitMicrodollars: 1_000_000 });
    await a.budgets.upsertBudget(d);
    const calls: Held[] = [];
    for (let i = 0; i < 20; i++) calls.push(held(await a.reservations.reserve(ctx, 100, { balance: 1_000_000, required: true })));
    expect(Object.keys(await creditHash(a))).toHaveLength(20);
    const batches = a.admission.settles.batches;
    const sent = await commandsSent(one, () =>
      Promise.all(calls.map((c, i) => (i % 2 ? a.reservations.settle(c, 10, ctx) : a.reservations.release(c)))),
    );
    expect(sent).toEqual(["evalsha"]);
    expect(a.admission.settles.batches - batches).toBe(1);
    expect(await creditHash(a)).toEqual({});
    expect(await budgetHash(d)).toEqual({ spent: "100" });
    // The batch answered the spend after its last cost: the headers have all ten.
    expect((await a.budgets.headers(ws, "key1"))["X-Budget-Daily-Spend"]).toBe("0.0001");
  });

  test("atomic: a budget refusal leaves no credit hold, a credit refusal no reservation", async () => {
    const a = instance(one, t.db);
    const full = def({ limitMicrodollars: 100 });
    await writeBatch(t.db, [makeRecord({ workspaceId: ws, createdAt: Date.now() - 1_000, costMicrodollars: 100 })], Date.now());
    await a.budgets.upsertBudget(full);
    const overBudget = await a.reservations.reserve(ctx, 10, { balance: 1000, required: true });
    expect(overBudget.ok === false && overBudget.code).toBe("budget_exceeded");
    expect(await creditHash(a)).toEqual({});
    expect(await budgetHash(full)).toEqual({ spent: "100" });

    a.budgets.removeBudget(full.id);
    const open = def();
    await a.budgets.upsertBudget(open);
    const noCredit = await a.reservations.reserve(ctx, 10, { balance: 0, required: true });
    expect(noCredit).toEqual({ ok: false, code: "insufficient_credits" });
    expect(Object.keys(await budgetHash(open)).filter((f) => f.startsWith("r:"))).toEqual([]);
    // A call a BYOK route may serve goes on without the hold, still reserving its budgets.
    const byokMaybe = held(await a.reservations.reserve(ctx, 10, { balance: 0, required: false }));
    expect(byokMaybe.hold).toBeNull();
    expect(await creditHash(a)).toEqual({});
    expect(await budgetHash(open)).toHaveProperty(`r:${byokMaybe.reservation.id}`);
  });

  test("two instances share the credit and budget headroom taken by the one script", async () => {
    const a = instance(one, t.db);
    const b = instance(two, t.db);
    const d = def({ limitMicrodollars: 1000 });
    await Promise.all([a.budgets.upsertBudget(d), b.budgets.upsertBudget(d)]);
    const onA = held(await a.reservations.reserve(ctx, 600, { balance: 500, required: true }));
    // A's hold covers the balance, so B refuses for credit; a call holding no credit still fits the budget (600 < 1000).
    expect(await b.reservations.reserve(ctx, 600, { balance: 500, required: true })).toEqual({ ok: false, code: "insufficient_credits" });
    const onB = held(await b.reservations.reserve(ctx, 600, null));
    // 600 + 600 reserved ≥ 1000: A is refused by the budget now, and takes no hold.
    const refused = await a.reservations.reserve(ctx, 1, null);
    expect(refused.ok === false && refused.code).toBe("budget_exceeded");
    await Promise.all([a.reservations.settle(onA, 0, ctx), b.reservations.release(onB)]);
    expect(held(await b.reservations.reserve(ctx, 1, { balance: 500, required: true })).hold).not.toBeNull();
  });

  test("with Redis down, holds and reservations are taken locally and still refuse", async () => {
    const a = instance(down, t.db);
    const d = def({ limitMicrodollars: 100 });
    const now = Date.now();
    await t.db.orm.insert(t.db.t.budgets).values({ ...d, createdAt: now, updatedAt: now });
    await a.budgets.load();
    const first = held(await a.reservations.reserve(ctx, 500, { balance: 100, required: true }));
    expect(first.hold).not.toBeNull();
    expect(await a.reservations.reserve(ctx, 1, { balance: 100, required: true })).toEqual({ ok: false, code: "insufficient_credits" });
    await a.reservations.settle(first, 120, ctx);
    const over = await a.reservations.reserve(ctx, 1, { balance: 100, required: true });
    expect(over.ok === false && over.code).toBe("budget_exceeded");
    expect(logs.some((l) => l.includes("budget counters fall back to per-instance counters"))).toBe(true);
  });

  test("stop() sends the settlements still queued", async () => {
    // A window far longer than the test: only stop() can send them.
    const a = instance(one, t.db, { windowMs: 600_000 });
    const d = def();
    await a.budgets.upsertBudget(d);
    const h = held(await a.reservations.reserve(ctx, 300, { balance: 1000, required: true }));
    void a.reservations.settle(h, 40, ctx);
    expect(await budgetHash(d)).toHaveProperty(`r:${h.reservation.id}`);
    await a.budgets.stop();
    expect(await budgetHash(d)).toEqual({ spent: "40" });
    expect(await creditHash(a)).toEqual({});
  });

  test("spend read while a settlement is queued counts it, once", async () => {
    const a = instance(one, t.db, { windowMs: 600_000 });
    const d = def();
    await a.budgets.upsertBudget(d);
    // The JSON path settles, then reads the budget headers: they include the call's own cost.
    const h = held(await a.reservations.reserve(ctx, 300, null));
    const settled = a.reservations.settle(h, 250, ctx);
    expect(await budgetHash(d)).toHaveProperty("spent", "0");
    expect(await a.budgets.headers(ws, "key1")).toEqual({ "X-Budget-Daily-Spend": "0.00025", "X-Budget-Daily-Limit": "0.001" });
    expect(await a.budgets.spend(d.id)).toBe(250);
    await a.admission.stop();
    await settled;
    expect(await budgetHash(d)).toEqual({ spent: "250" });
    expect(await a.budgets.spend(d.id)).toBe(250);
    expect((await a.budgets.headers(ws, "key1"))["X-Budget-Daily-Spend"]).toBe("0.00025");
  });
});

describe("SettleQueue", () => {
  test("a full batch is sent at once, without waiting for the window", async () => {
    const q = new SettleQueue(one, logger, new SpendView(), { windowMs: 600_000, maxOps: 2 });
    const key = one.key("settle-test", randomBase62(8));
    await one.client.hset(key, "spent", 5, "r:x", "1:0", "r:y", "1:0");
    const first = q.push("x", [{ end: key, field: "r:x" }]);
    const full = q.push("y", [
      { end: key, field: "r:y" },
      { spend: key, cost: 7 },
    ]);
    await Promise.all([first, full]);
    expect(await one.client.hgetall(key)).toEqual({ spent: "12" });
    expect(q.batches).toBe(1);
  });

  test("a batch Redis does not take is logged and its waiters still resolve", async () => {
    const q = new SettleQueue(down, logger, new SpendView(), { windowMs: 1 });
    await q.push("lost", [{ end: down.key("k"), field: "r:lost" }]);
    expect(logs.some((l) => l.includes("credit hold releases not applied in Redis") && l.includes("lost"))).toBe(true);
  });
});
