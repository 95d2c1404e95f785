// Issue 54 item 7, one fleet one view: two HealthStores, each with its own RedisHealthSync on its own
// connections to the real Redis, learn from each other's samples: a success on A moves B's estimate,
// A's failures open B's circuit, nobody applies its own samples, a late joiner starts from the log, and
// with Redis unreachable the hot path still returns at once.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { randomBase62 } from "../../../src/platform/ids";
import { createLogger } from "../../../src/platform/logger";
import { RedisConnection } from "../../../src/platform/redis";
import { DEFAULT_HEALTH_OPTIONS, HealthStore } from "../../../src/routing/health";
import { RedisHealthSync, type HealthSyncOptions } from "../../../src/routing/redis-health-sync";
import { eventually } from "../../support/spawn";
import { deleteKeys, privateRedis, SHARED_REDIS } from "./cluster";

const logger = createLogger("error", () => {});
const url = `${SHARED_REDIS}/6`;
const KEY = "alpha/alpha-model";
const PRIOR = { ttftMs: 1_000, tps: 50 };
const prefixes: string[] = [];
const running: { sync: RedisHealthSync; redis: RedisConnection }[] = [];

/** An instance: its own store, connections and sync, on the test's prefix. */
async function instance(prefix: string, o: HealthSyncOptions = {}, redisUrl = url) {
  const redis = new RedisConnection(redisUrl, prefix, logger, { startWaitMs: 500 });
  const health = new HealthStore();
  const sync = new RedisHealthSync(redis, health, logger, o);
  sync.start();
  await redis.start();
  running.push({ sync, redis });
  return { redis, health, sync };
}

type Instance = Awaited<ReturnType<typeof instance>>;

/** Returns once a sample recorded on `from` reaches `to` (its subscription is live), retrying with fresh probes. */
async function linked(from: Instance, to: Instance): Promise<void> {
  for (let i = 0; i < 25; i++) {
    const key = `probe/${i}-${randomBase62(4)}`;
    from.health.recordSuccess(key, { latencyMs: 1 }, Date.now());
    from.sync.flush();
    if (await eventually(() => to.health.view(key, Date.now()).successes === 1, 200, 5)) return;
  }
  throw new Error("the route health channel never linked the two instances");
}

async function pair(o: HealthSyncOptions = {}, redisUrl = url) {
  const prefix = `switchyard-test-${randomBase62(10)}:`;
  prefixes.push(prefix);
  const a = await instance(prefix, o, redisUrl);
  const b = await instance(prefix, o, redisUrl);
  expect(a.redis.isUp() && b.redis.isUp()).toBe(true);
  await linked(a, b);
  await linked(b, a);
  return { prefix, a, b };
}

afterEach(async () => {
  const all = running.splice(0);
  for (const r of all) r.sync.stop();
  await Promise.all(all.map((r) => r.redis.close()));
});
afterAll(async () => {
  for (const p of prefixes) await deleteKeys(url, p).catch(() => undefined);
});

describe("RedisHealthSync", () => {
  test("a success on A moves B's estimate toward it within the flush interval", async () => {
    const { a, b } = await pair();
    const before = b.health.estimate(KEY, PRIOR, Date.now());
    expect(before.ttftP50Ms).toBeCloseTo(PRIOR.ttftMs, 6);
    const sentAt = Date.now();
    a.health.recordSuccess(KEY, { ttftMs: 100, tps: 200, latencyMs: 900 }, Date.now());
    expect(await eventually(() => b.health.estimate(KEY, PRIOR, Date.now()).ttftSamples > 0, 5_000, 5)).toBe(true);
    const lag = Date.now() - sentAt;
    const after = b.health.estimate(KEY, PRIOR, Date.now());
    expect(after.ttftP50Ms).toBeLessThan(300);
    expect(after.tpsP50).toBeGreaterThan(150);
    expect(after.ttftP50Ms).toBeCloseTo(a.health.estimate(KEY, PRIOR, Date.now()).ttftP50Ms, 0);
    expect(b.health.view(KEY, Date.now()).successes).toBe(1);
    expect(lag).toBeLessThan(1_000);
  });

  test("a stream's first token on A reaches B as a TTFT sample, with no outcome", async () => {
    const { a, b } = await pair();
    a.health.recordFirstToken(KEY, 90, Date.now());
    expect(await eventually(() => b.health.estimate(KEY, PRIOR, Date.now()).ttftSamples > 0, 5_000, 5)).toBe(true);
    const e = b.health.estimate(KEY, PRIOR, Date.now());
    expect(e.ttftP50Ms).toBeLessThan(200);
    expect(e.outcomeSamples).toBe(0);
    expect(b.health.view(KEY, Date.now()).successes).toBe(0);
  });

  test("failures on A, as many as the circuit's threshold, open B's circuit; a success on A closes it", async () => {
    const { a, b } = await pair();
    const n = DEFAULT_HEALTH_OPTIONS.failureThreshold;
    for (let i = 0; i < n - 1; i++) a.health.recordFailure(KEY, { status: 503, code: "upstream_error" }, Date.now());
    expect(await eventually(() => b.health.view(KEY, Date.now()).failures === n - 1, 5_000, 5)).toBe(true);
    expect(b.health.state(KEY, Date.now())).toBe("closed");
    a.health.recordFailure(KEY, { status: 503, code: "upstream_error", retryAfterMs: 20_000 }, Date.now());
    expect(await eventually(() => b.health.state(KEY, Date.now()) === "open", 5_000, 5)).toBe(true);
    const view = b.health.view(KEY, Date.now());
    expect(view.lastFailureStatus).toBe(503);
    expect(view.lastFailureCode).toBe("upstream_error");
    // The Retry-After travelled: B's cool-down is A's 20 s (within the flush lag), not the 30 s default.
    expect(view.openUntil! - Date.now()).toBeLessThanOrEqual(20_000);
    expect(view.openUntil! - Date.now()).toBeGreaterThan(15_000);
    expect(b.health.canAttempt(KEY, Date.now())).toBe(false);
    a.health.recordSuccess(KEY, { latencyMs: 100 }, Date.now());
    expect(await eventually(() => b.health.state(KEY, Date.now()) === "closed", 5_000, 5)).toBe(true);
  });

  test("an instance's own samples are not applied to it a second time", async () => {
    const { a, b } = await pair();
    const received = a.sync.stats.batchesReceived;
    a.health.recordSuccess(KEY, { ttftMs: 100, latencyMs: 500 }, Date.now());
    a.health.recordFailure(KEY, {}, Date.now());
    expect(await eventually(() => b.health.view(KEY, Date.now()).failures === 1, 5_000, 5)).toBe(true);
    // Pub/sub delivers a channel's messages in order: once B's later batch reached A, A's own had too.
    b.health.recordSuccess("marker/m", { latencyMs: 1 }, Date.now());
    expect(await eventually(() => a.health.view("marker/m", Date.now()).successes === 1, 5_000, 5)).toBe(true);
    const own = a.health.view(KEY, Date.now());
    expect([own.successes, own.failures]).toEqual([1, 1]);
    // Nor does B publish what it applied: since the pair linked, A received exactly one batch (the marker).
    expect(a.sync.stats.batchesReceived - received).toBe(1);
    expect(b.health.view(KEY, Date.now()).successes).toBe(1);
  });

  test("many samples travel as a few batches, and a full buffer flushes without waiting for the timer", async () => {
    const { a, b } = await pair({ batchSize: 50, flushEveryMs: 60_000 });
    const published = a.sync.stats.batchesPublished;
    for (let i = 0; i < 100; i++) a.health.recordSuccess(KEY, { ttftMs: 100 + i, latencyMs: 500 }, Date.now());
    expect(await eventually(() => b.health.view(KEY, Date.now()).successes === 100, 5_000, 5)).toBe(true);
    expect(a.sync.stats.batchesPublished - published).toBe(2);
  });

  test("an instance that joins later starts from the fleet's recent samples in the log, and applies none twice", async () => {
    const { prefix, a, b } = await pair();
    for (let i = 0; i < 3; i++) a.health.recordFailure(KEY, {}, Date.now());
    b.health.recordSuccess("beta/beta-model", { ttftMs: 80, tps: 300, latencyMs: 400 }, Date.now());
    expect(await eventually(() => b.health.state(KEY, Date.now()) === "open", 5_000, 5)).toBe(true);
    expect(await eventually(() => a.health.view("beta/beta-model", Date.now()).successes === 1, 5_000, 5)).toBe(true);
    const c = await instance(prefix);
    expect(await eventually(() => c.health.state(KEY, Date.now()) === "open", 5_000, 5)).toBe(true);
    expect(await eventually(() => c.health.view("beta/beta-model", Date.now()).successes === 1, 5_000, 5)).toBe(true);
    expect(c.health.estimate("beta/beta-model", PRIOR, Date.now()).ttftP50Ms).toBeLessThan(200);
    expect(c.sync.stats.samplesReplayed).toBeGreaterThanOrEqual(4);
    // Catching up again (as after a reconnection) finds nothing new: B already applied all of it live.
    await b.sync.catchUp();
    await c.sync.catchUp();
    expect(b.health.view(KEY, Date.now()).failures).toBe(3);
    expect(c.health.view(KEY, Date.now()).failures).toBe(3);
    expect(c.health.view("beta/beta-model", Date.now()).successes).toBe(1);
  });

  test("Redis unreachable: recording returns at once, nothing throws, the buffer stays bounded", async () => {
    const prefix = `switchyard-test-${randomBase62(10)}:`;
    const down = await instance(prefix, { capacity: 300, batchSize: 100 }, "redis://127.0.0.1:1");
    expect(down.redis.isUp()).toBe(false);
    const t0 = performance.now();
    for (let i = 0; i < 310; i++) down.health.recordSuccess(KEY, { ttftMs: 100, latencyMs: 500 }, Date.now());
    down.health.recordFailure(KEY, {}, Date.now());
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeLessThan(50);
    expect(down.sync.buffered()).toBe(300);
    expect(down.sync.stats.samplesDropped).toBe(11);
    expect(() => down.sync.flush()).not.toThrow();
    expect(down.sync.buffered()).toBe(300);
    expect(down.sync.stats.batchesPublished).toBe(0);
    await down.sync.catchUp();
    // The local store learnt from its own traffic as without Redis.
    expect(down.health.view(KEY, Date.now()).successes).toBe(310);
    expect(down.health.estimate(KEY, PRIOR, Date.now()).ttftP50Ms).toBeLessThan(200);
  });

  test("through a Redis outage each instance learns alone; afterwards what one saw meanwhile reaches the other", async () => {
    const redis = await privateRedis();
    await redis.start();
    try {
      const { a, b } = await pair({}, redis.url);
      await redis.stop();
      expect(await eventually(() => !a.redis.isUp() && !b.redis.isUp(), 5_000, 10)).toBe(true);
      for (let i = 0; i < 3; i++) a.health.recordFailure(KEY, {}, Date.now());
      b.health.recordSuccess("beta/beta-model", { ttftMs: 80, latencyMs: 400 }, Date.now());
      expect(a.health.state(KEY, Date.now())).toBe("open");
      expect(b.health.state(KEY, Date.now())).toBe("closed");
      expect(a.sync.buffered()).toBe(3);
      await redis.start();
      // The buffered samples leave once the connection is back, live or through the log.
      expect(await eventually(() => b.health.state(KEY, Date.now()) === "open", 10_000, 10)).toBe(true);
      expect(await eventually(() => a.health.view("beta/beta-model", Date.now()).successes === 1, 10_000, 10)).toBe(true);
      expect(a.sync.buffered() + b.sync.buffered()).toBe(0);
      expect(b.health.view(KEY, Date.now()).failures).toBe(3);
    } finally {
      await redis.stop();
    }
  }, 30_000);
});
