// The Redis-backed limiter, budget counters and Idempotency-Key lock, in process against the real
// Redis: two objects on one prefix stand for two instances. Times are real (Redis keys expire).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { resolveLimits } from "../../../src/limits/classes";
import { RedisRateLimiter } from "../../../src/limits/redis-store";
import { RedisIdempotencyLock } from "../../../src/management/idempotency/redis-lock";
import type { BudgetDef, Reservation, ReserveResult, SpendContext } from "../../../src/metering/budgets";
import { writeBatch } from "../../../src/metering/record-batch";
import { RedisBudgetCounters } from "../../../src/metering/redis-budgets";
import { randomBase62 } from "../../../src/platform/ids";
import { createLogger } from "../../../src/platform/logger";
import { RedisConnection } from "../../../src/platform/redis";
import { makeRecord, openTestDb, type TestDb } from "../metering/test-db";
import { SHARED_REDIS } from "./cluster";
import { commandsSent, scripts } from "./commands-sent";
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

describe("RedisRateLimiter", () => {
  const limits = resolveLimits({ key_creation: { per_minute: 5 } });

  test("two limiters on one Redis share each bucket; other keys and classes are separate", async () => {
    const a = new RedisRateLimiter(one, limits, logger);
    const b = new RedisRateLimiter(two, limits, logger);
    const key = randomBase62(8);
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await (i % 2 ? b : a).check("key_creation", key));
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, false, false, false]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0, 0]);
    const refused = results[7]!;
    if (refused.ok) throw new Error("expected a refusal");
    // 5 per minute: one token every 12 s.
    expect(refused.retryAfterMs).toBeGreaterThan(10_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(12_000);
    expect(refused.resetAt - Date.now()).toBeGreaterThan(50_000);
    expect((await a.check("key_creation", randomBase62(8))).ok).toBe(true);
    expect((await a.check("management_writes", key)).ok).toBe(true);
  });

  test("with Redis down it limits locally instead of failing, and says so once", async () => {
    const local = new RedisRateLimiter(down, limits, logger);
    const key = randomBase62(8);
    const oks = [];
    for (let i = 0; i < 7; i++) oks.push((await local.check("key_creation", key)).ok);
    expect(oks).toEqual([true, true, true, true, true, false, false]);
    expect(logs.filter((l) => l.includes("rate limits fall back to per-instance buckets")).length).toBe(1);
  });
});

describe("RedisBudgetCounters", () => {
  let t: TestDb;
  let a: RedisBudgetCounters;
  let b: RedisBudgetCounters;
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
  const reserved = (r: ReserveResult): Reservation => {
    if (!r.ok) throw new Error(`expected a reservation, got: ${r.message}`);
    return r.reservation;
  };

  beforeEach(async () => {
    t = await openTestDb("sqlite");
    ws = `ws_${randomBase62(8)}`;
    ctx = { workspaceId: ws, apiKeyId: "key1", provider: "alpha", byok: false };
    a = new RedisBudgetCounters(one, t.db, logger, { reservationTtlMs: 60_000 });
    b = new RedisBudgetCounters(two, t.db, logger, { reservationTtlMs: 60_000 });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test("spend is seeded from the request records once, then shared: a reservation on A holds headroom on B", async () => {
    await writeBatch(t.db, [makeRecord({ workspaceId: ws, createdAt: Date.now() - 1_000, costMicrodollars: 400 })], Date.now());
    const d = def();
    await Promise.all([a.upsertBudget(d), b.upsertBudget(d)]);
    expect(await b.spend(d.id)).toBe(400);
    const onA = reserved(await a.reserve(ctx, 700));
    // 400 spent + 700 reserved ≥ 1000: B refuses while A's call is in flight.
    const refused = await b.reserve(ctx, 1);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.message).toContain("daily budget for workspace");
    await a.release(onA);
    const onB = reserved(await b.reserve(ctx, 700));
    await b.settle(onB, 650);
    expect(await a.spend(d.id)).toBe(1050);
    expect((await a.reserve(ctx, 1)).ok).toBe(false);
    expect(await a.headers(ws, "key1")).toEqual({ "X-Budget-Daily-Spend": "0.00105", "X-Budget-Daily-Limit": "0.001" });
    // A record written now is not counted twice: the period is already seeded.
    await writeBatch(t.db, [makeRecord({ workspaceId: ws, costMicrodollars: 650 })], Date.now());
    expect(await b.spend(d.id)).toBe(1050);
  });

  test("a call no budget applies to sends Redis nothing to settle or release", async () => {
    const sent = await commandsSent(one, async () => {
      const settled = reserved(await a.reserve(ctx, 700));
      await a.settle(settled, 650);
      await a.release(reserved(await a.reserve(ctx, 10)));
    });
    expect(sent).toEqual([]);
    // With a budget, the reservation and its settlement each take a script.
    await a.upsertBudget(def());
    expect(scripts(await commandsSent(one, async () => a.settle(reserved(await a.reserve(ctx, 700)), 650)))).toBeGreaterThanOrEqual(2);
  });

  test("a reservation whose instance never settles it stops holding headroom after its TTL", async () => {
    const crashed = new RedisBudgetCounters(one, t.db, logger, { reservationTtlMs: 150 });
    const d = def({ limitMicrodollars: 100 });
    await Promise.all([crashed.upsertBudget(d), b.upsertBudget(d)]);
    reserved(await crashed.reserve(ctx, 500));
    expect((await b.reserve(ctx, 1)).ok).toBe(false);
    await Bun.sleep(200);
    expect((await b.reserve(ctx, 1)).ok).toBe(true);
  });

  test("definitions reload from the database: a budget created elsewhere is enforced after reloadDefinitions()", async () => {
    const d = def({ limitMicrodollars: 10 });
    const now = Date.now();
    await writeBatch(t.db, [makeRecord({ workspaceId: ws, createdAt: now - 1_000, costMicrodollars: 10 })], now);
    expect((await b.reserve(ctx, 1)).ok).toBe(true);
    await t.db.orm.insert(t.db.t.budgets).values({ ...d, createdAt: now, updatedAt: now });
    await b.reloadDefinitions();
    expect((await b.reserve(ctx, 1)).ok).toBe(false);
    await t.db.orm.delete(t.db.t.budgets);
    await b.reloadDefinitions();
    expect((await b.reserve(ctx, 1)).ok).toBe(true);
  });

  test("with Redis down it enforces on local counters loaded from the database", async () => {
    const local = new RedisBudgetCounters(down, t.db, logger);
    const d = def({ limitMicrodollars: 100 });
    const now = Date.now();
    await t.db.orm.insert(t.db.t.budgets).values({ ...d, createdAt: now, updatedAt: now });
    await writeBatch(t.db, [makeRecord({ workspaceId: ws, createdAt: now - 1_000, costMicrodollars: 60 })], now);
    await local.load();
    expect(await local.spend(d.id)).toBe(60);
    await local.settle(reserved(await local.reserve(ctx, 10)), 50);
    expect(await local.spend(d.id)).toBe(110);
    expect((await local.reserve(ctx, 1)).ok).toBe(false);
    expect(logs.some((l) => l.includes("budget counters fall back to per-instance counters"))).toBe(true);
  });
});

describe("RedisIdempotencyLock", () => {
  test("one holder across instances; only the holder releases; the TTL frees a lock whose holder died", async () => {
    const a = new RedisIdempotencyLock(one);
    const b = new RedisIdempotencyLock(two);
    const key = `ws:byok:${randomBase62(8)}`;
    expect(await a.acquire(key, 60_000)).toBe(true);
    expect(await b.acquire(key, 60_000)).toBe(false);
    await b.release(key); // not the holder: must not free it
    expect(await b.acquire(key, 60_000)).toBe(false);
    await a.release(key);
    expect(await b.acquire(key, 100)).toBe(true);
    expect(await a.acquire(key, 60_000)).toBe(false);
    await Bun.sleep(150);
    expect(await a.acquire(key, 60_000)).toBe(true);
    // b's lock expired and a took it: b's late release must leave a's lock in place.
    await b.release(key);
    expect(await b.acquire(key, 60_000)).toBe(false);
    await a.release(key);
  });

  test("with Redis down the lock is per instance", async () => {
    const local = new RedisIdempotencyLock(down);
    expect(await local.acquire("k", 60_000)).toBe(true);
    expect(await local.acquire("k", 60_000)).toBe(false);
    await local.release("k");
    expect(await local.acquire("k", 60_000)).toBe(true);
  });
});
