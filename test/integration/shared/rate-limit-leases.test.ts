// Token leases of the shared rate limiter against the real Redis: two RedisConnection objects on one
// prefix stand for two instances. Lease expiry runs on an injected clock; Redis' own clock refills.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolveLimits, type RateClass } from "../../../src/limits/classes";
import type { LimitResult } from "../../../src/limits/limiter";
import { RedisRateLimiter } from "../../../src/limits/redis-store";
import { LEASE_MS } from "../../../src/limits/token-lease";
import { randomBase62 } from "../../../src/platform/ids";
import { createLogger } from "../../../src/platform/logger";
import { RedisConnection } from "../../../src/platform/redis";
import { eventually } from "../../support/spawn";
import { privateRedis, SHARED_REDIS } from "./cluster";
import { commandsSent, scripts } from "./commands-sent";
import { startInstances, stopInstances } from "./redis-instances";

const logs: string[] = [];
const logger = createLogger("debug", (l) => logs.push(l));
const prefix = `switchyard-test-${randomBase62(10)}:`;
const url = `${SHARED_REDIS}/6`;
let one: RedisConnection;
let two: RedisConnection;

// Lease caps (100 ms of refill, an eighth of the burst, at most 256): inference 256, management_writes 75,
// discovery 10, management_reads 2, key_creation 1 (not leased).
const limits = resolveLimits({
  inference: { per_minute: 10_000_000 },
  management_writes: { per_minute: 120_000, burst: 600 },
  discovery: { per_minute: 6_000, burst: 80 },
  management_reads: { per_minute: 1_200 },
  key_creation: { per_minute: 20 },
});

let down: RedisConnection;
beforeAll(async () => ({ one, two, down } = await startInstances(url, prefix, logger)));
afterAll(() => stopInstances({ one, two, down }, url, prefix));

/** Counts the script calls sent on a connection while `run` runs. */
async function scriptCalls(conn: RedisConnection, run: () => Promise<void>): Promise<number> {
  return scripts(await commandsSent(conn, run));
}

/** Watches a connection's script calls: how many were sent, and how many await their answer. */
function watchScripts(conn: RedisConnection): { sent: number; pending: number; stop(): void } {
  const client = conn.client as unknown as { sendCommand(c: { name: string; promise: Promise<unknown> }): unknown };
  const original = client.sendCommand;
  const w = {
    sent: 0,
    pending: 0,
    stop: () => {
      client.sendCommand = original;
    },
  };
  client.sendCommand = function (this: unknown, c: { name: string; promise: Promise<unknown> }) {
    if (c.name === "evalsha" || c.name === "eval") {
      w.sent++;
      w.pending++;
      c.promise.then(
        () => w.pending--,
        () => w.pending--,
      );
    }
    return original.call(this, c);
  };
  return w;
}

const okCount = (rs: LimitResult[]) => rs.filter((r) => r.ok).length;

/**
 * Checks one at a time until the limiter holds at least `min` tokens of the key (its lease has grown),
 * then waits until no script call of the connection is in flight: the lease stays as it is now.
 */
async function growLease(l: RedisRateLimiter, conn: RedisConnection, cls: RateClass, key: string, min: number): Promise<void> {
  const w = watchScripts(conn);
  try {
    const grown = await eventually(
      async () => {
        expect((await l.check(cls, key)).ok).toBe(true);
        return l.heldTokens(cls, key) >= min;
      },
      5_000,
      2,
    );
    expect(grown).toBe(true);
    expect(await eventually(() => w.pending === 0, 5_000, 2)).toBe(true);
  } finally {
    w.stop();
  }
}

/** Checks until the shared bucket refuses: afterwards it holds less than one token. */
async function drain(l: RedisRateLimiter, cls: RateClass, key: string): Promise<void> {
  for (let i = 0; i < 10_000; i++) if (!(await l.check(cls, key)).ok) return;
  throw new Error("the bucket never ran dry");
}

describe("RedisRateLimiter leases", () => {
  test("a hot key with a high limit sends one script call per lease, and most checks answer without waiting", async () => {
    const a = new RedisRateLimiter(one, limits, logger);
    const key = randomBase62(8);
    const checks = 3_000;
    let immediate = 0;
    const results: LimitResult[] = [];
    const calls = await scriptCalls(one, async () => {
      for (let i = 0; i < checks; i++) {
        const r = a.check("inference", key);
        if (r instanceof Promise) results.push(await r);
        else {
          immediate++;
          results.push(r);
        }
      }
    });
    expect(okCount(results)).toBe(checks);
    expect(calls).toBeLessThan(checks / 50);
    expect(immediate).toBeGreaterThan(checks * 0.9);
    expect(a.heldTokens("inference", key)).toBeLessThanOrEqual(256);
    for (const r of results) expect(r.remaining).toBeLessThanOrEqual(10_000_000);
    await a.close();
  });

  test("concurrent checks of a key whose lease is empty share the script call in flight", async () => {
    const a = new RedisRateLimiter(one, limits, logger);
    const key = randomBase62(8);
    let results: LimitResult[] = [];
    const calls = await scriptCalls(one, async () => {
      results = await Promise.all(Array.from({ length: 200 }, () => a.check("inference", key)));
    });
    expect(okCount(results)).toBe(200);
    // The first check's call (one token), one call for all who waited on it, and at most one top-up.
    expect(calls).toBeLessThanOrEqual(3);
    await a.close();
  });

  test("a lease at half is topped up in the background: no check waits for it", async () => {
    const now = Date.now();
    const a = new RedisRateLimiter(one, limits, logger, { now: () => now, sweepEveryMs: 0 });
    const key = randomBase62(8);
    await growLease(a, one, "discovery", key, 8);
    const w = watchScripts(one);
    try {
      // The lease holds 8 or 10 tokens: spending it down to half sends one call, and every check answers at once.
      for (let i = 0; i < 10 && w.sent === 0; i++) expect(a.check("discovery", key)).not.toBeInstanceOf(Promise);
      expect(w.sent).toBe(1);
      expect(a.heldTokens("discovery", key)).toBeGreaterThanOrEqual(4);
      expect(await eventually(() => w.pending === 0, 5_000, 2)).toBe(true);
      expect(a.heldTokens("discovery", key)).toBeGreaterThanOrEqual(8);
    } finally {
      w.stop();
    }
    await a.close();
  });

  test("two instances together never admit more than the bucket gives out", async () => {
    for (const [cls, burst, perMs] of [
      ["management_reads", 1_200, 1_200 / 60_000],
      ["management_writes", 600, 120_000 / 60_000],
    ] as const) {
      const a = new RedisRateLimiter(one, limits, logger);
      const b = new RedisRateLimiter(two, limits, logger);
      const key = randomBase62(8);
      const started = Date.now();
      let admitted = 0;
      for (let wave = 0; wave < 15; wave++) {
        const rs = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? b : a).check(cls, key)));
        admitted += okCount(rs);
      }
      const elapsed = Date.now() - started;
      // A full bucket plus what Redis refilled meanwhile; the leases' leftovers were never admitted.
      expect(admitted).toBeLessThanOrEqual(burst + Math.ceil(perMs * elapsed) + 1);
      expect(admitted).toBeGreaterThanOrEqual(burst - 2 * Math.ceil(perMs * 100));
      await Promise.all([a.close(), b.close()]);
    }
  });

  test("a small limit is exact across instances: one script call per check, as without leases", async () => {
    const a = new RedisRateLimiter(one, limits, logger);
    const b = new RedisRateLimiter(two, limits, logger);
    const key = randomBase62(8);
    let results: LimitResult[] = [];
    const calls = await scriptCalls(one, async () => {
      results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? b : a).check("key_creation", key)));
    });
    expect(okCount(results)).toBe(20);
    expect(calls).toBe(30);
    expect(a.heldTokens("key_creation", key) + b.heldTokens("key_creation", key)).toBe(0);
  });

  test("what a lease still holds at expiry goes back to the bucket, for the other instances", async () => {
    let now = Date.now();
    const a = new RedisRateLimiter(one, limits, logger, { now: () => now, sweepEveryMs: 0 });
    const b = new RedisRateLimiter(two, limits, logger);
    const key = randomBase62(8);
    await growLease(a, one, "discovery", key, 8);
    const held = a.heldTokens("discovery", key);
    expect(held).toBeLessThanOrEqual(10);
    // B runs the bucket dry while A's lease holds its tokens: the bounded under-admission.
    await drain(b, "discovery", key);
    const dryAt = Date.now();
    expect(b.heldTokens("discovery", key)).toBe(0);
    now += LEASE_MS;
    await a.sweepLeases();
    expect(a.heldTokens("discovery", key)).toBe(0);
    // A fresh limiter's first check takes exactly one token: its remaining is the bucket's.
    const r = await new RedisRateLimiter(two, limits, logger).check("discovery", key);
    const refilled = Math.ceil((Date.now() - dryAt) * (6_000 / 60_000));
    expect(r.ok).toBe(true);
    expect(r.remaining).toBeGreaterThanOrEqual(held - 1);
    expect(r.remaining).toBeLessThanOrEqual(held + refilled);
  });

  test("close() gives back what the leases hold", async () => {
    const a = new RedisRateLimiter(one, limits, logger, { sweepEveryMs: 0 });
    const b = new RedisRateLimiter(two, limits, logger);
    const key = randomBase62(8);
    await growLease(a, one, "discovery", key, 8);
    const held = a.heldTokens("discovery", key);
    await drain(b, "discovery", key);
    const dryAt = Date.now();
    await a.close();
    const r = await new RedisRateLimiter(two, limits, logger).check("discovery", key);
    expect(r.remaining).toBeGreaterThanOrEqual(held - 1);
    expect(r.remaining).toBeLessThanOrEqual(held + Math.ceil((Date.now() - dryAt) * (6_000 / 60_000)));
  });

  test("an expired lease is not spent: the next check asks Redis again", async () => {
    let now = Date.now();
    const a = new RedisRateLimiter(one, limits, logger, { now: () => now, sweepEveryMs: 0 });
    const key = randomBase62(8);
    await growLease(a, one, "discovery", key, 8);
    now += LEASE_MS;
    const calls = await scriptCalls(one, async () => {
      const r = a.check("discovery", key);
      expect(r).toBeInstanceOf(Promise);
      expect((await r).ok).toBe(true);
    });
    // Its tokens went back (one call) and a new lease was taken (another).
    expect(calls).toBeGreaterThanOrEqual(2);
    await a.close();
  });
});

describe("RedisRateLimiter leases without Redis", () => {
  test("with Redis down from the start a leased class limits locally", async () => {
    const down = new RedisConnection("redis://127.0.0.1:1", prefix, logger, { startWaitMs: 300 });
    await down.start();
    const local = new RedisRateLimiter(down, limits, logger);
    const key = randomBase62(8);
    const rs: LimitResult[] = [];
    for (let i = 0; i < 85; i++) rs.push(await local.check("discovery", key));
    expect(okCount(rs)).toBe(80);
    await down.close();
  });

  test("Redis going away drops the leases and falls back; its return shares the buckets again", async () => {
    const redis = await privateRedis();
    await redis.start();
    const conn = new RedisConnection(redis.url, prefix, logger, { commandTimeoutMs: 300 });
    try {
      await conn.start();
      const l = new RedisRateLimiter(conn, limits, logger, { sweepEveryMs: 0 });
      const key = randomBase62(8);
      await growLease(l, conn, "discovery", key, 8);
      await redis.stop();
      expect(await eventually(() => !conn.isUp(), 5_000, 20)).toBe(true);
      const local = await l.check("discovery", key);
      expect(local.ok && local.remaining).toBe(79);
      expect(l.heldTokens("discovery", key)).toBe(0);
      expect(logs.some((m) => m.includes("rate limits fall back to per-instance buckets"))).toBe(true);
      await redis.start();
      expect(await eventually(() => conn.isUp(), 10_000, 50)).toBe(true);
      // The new Redis starts empty: a full shared bucket, of which this check takes one.
      const shared = await l.check("discovery", key);
      expect(shared.ok && shared.remaining).toBe(79);
      expect(logs.some((m) => m.includes("rate limits are shared through Redis again"))).toBe(true);
      expect(l.heldTokens("discovery", key)).toBe(0);
    } finally {
      await conn.close();
      await redis.stop();
    }
  }, 30_000);
});
