// The shared sticky store against the real Redis: a session stuck on one instance is found by another
// (one GET, then from that instance's memory without a round trip), under `${prefix}sticky:${session}`
// with a PX expiry of the TTL; the clock decides expiry as in memory; while Redis is down memory answers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Redis from "ioredis";
import { RedisStickyStore } from "../../../src/inference/sticky/redis-store";
import { randomBase62 } from "../../../src/platform/ids";
import { createLogger } from "../../../src/platform/logger";
import { RedisConnection } from "../../../src/platform/redis";
import { FakeClock } from "../../support/fake-clock";
import { eventually } from "../../support/spawn";
import { deleteKeys, SHARED_REDIS } from "./cluster";
import { commandsSent } from "./commands-sent";

const logger = createLogger("error", () => {});
const prefix = `switchyard-test-${randomBase62(10)}:`;
const url = `${SHARED_REDIS}/6`;
const TTL = 600_000;

describe("RedisStickyStore", () => {
  let one: RedisConnection;
  let two: RedisConnection;
  let down: RedisConnection;
  let raw: Redis;
  const clock = new FakeClock();
  const opts = { ttlMs: TTL, now: () => clock.now() };
  beforeAll(async () => {
    one = new RedisConnection(url, prefix, logger);
    two = new RedisConnection(url, prefix, logger);
    down = new RedisConnection("redis://127.0.0.1:1", prefix, logger, { startWaitMs: 300 });
    raw = new Redis(url, { lazyConnect: true, retryStrategy: () => null });
    await Promise.all([one.start(), two.start(), down.start(), raw.connect()]);
    expect(one.isUp() && two.isUp()).toBe(true);
    expect(down.isUp()).toBe(false);
  });
  afterAll(async () => {
    raw.disconnect();
    await Promise.all([one.close(), two.close(), down.close()]);
    await deleteKeys(url, prefix);
  });

  const session = () => `ws-${randomBase62(6)}\u0000id:${randomBase62(8)}`;
  /** Polls Redis until the fire-and-forget write is there. */
  const written = async (a: RedisStickyStore, s: string) =>
    expect(await eventually(async () => (await raw.get(a.keyOf(s))) !== null)).toBe(true);

  test("stuck through one instance, found through another: one GET, then from memory", async () => {
    const a = new RedisStickyStore(one, opts);
    const b = new RedisStickyStore(two, opts);
    const s = session();
    a.remember(s, "anthropic/claude");
    expect(a.lookup(s)).toBe("anthropic/claude");
    await written(a, s);
    const first = b.lookup(s);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe("anthropic/claude");
    // Known here now: answered synchronously, no round trip.
    expect(b.lookup(s)).toBe("anthropic/claude");
  });

  test("an unknown session costs one GET and is not found", async () => {
    const b = new RedisStickyStore(two, opts);
    const found = b.lookup(session());
    expect(found).toBeInstanceOf(Promise);
    expect(await found).toBeUndefined();
  });

  test("the key is prefix + sticky:{session} with a PX expiry of the TTL; the value is the route and its expiry", async () => {
    const a = new RedisStickyStore(one, opts);
    const s = session();
    a.remember(s, "p/m");
    await written(a, s);
    const key = `${prefix}sticky:${s}`;
    expect(a.keyOf(s)).toBe(key);
    const ttl = await raw.pttl(key);
    expect(ttl).toBeGreaterThan(TTL - 60_000);
    expect(ttl).toBeLessThanOrEqual(TTL);
    expect(JSON.parse((await raw.get(key))!)).toEqual({ r: "p/m", e: clock.now() + TTL });
  });

  test("expiry follows the clock: after the TTL neither instance finds it", async () => {
    const c = new FakeClock();
    const a = new RedisStickyStore(one, { ttlMs: TTL, now: () => c.now() });
    const b = new RedisStickyStore(two, { ttlMs: TTL, now: () => c.now() });
    const s = session();
    a.remember(s, "p/m");
    await written(a, s);
    c.advance(TTL - 1);
    expect(await b.lookup(s)).toBe("p/m");
    c.advance(1);
    // Expired here, so Redis is asked, and its value's expiry has passed too.
    expect(await a.lookup(s)).toBeUndefined();
    // Another instance that never saw it reads the value's own expiry.
    expect(await new RedisStickyStore(two, { ttlMs: TTL, now: () => c.now() }).lookup(s)).toBeUndefined();
  });

  test("a re-stick on another instance replaces the route in Redis; the latest write wins for a newcomer", async () => {
    const a = new RedisStickyStore(one, opts);
    const b = new RedisStickyStore(two, opts);
    const s = session();
    a.remember(s, "p/one");
    await written(a, s);
    b.remember(s, "p/two");
    expect(await eventually(async () => JSON.parse((await raw.get(a.keyOf(s)))!).r === "p/two")).toBe(true);
    expect(await new RedisStickyStore(one, opts).lookup(s)).toBe("p/two");
  });

  test("turns soon after the shared copy was written do not rewrite it; one a tenth of the TTL later, or on another route, does", async () => {
    const c = new FakeClock();
    const a = new RedisStickyStore(one, { ttlMs: TTL, now: () => c.now() });
    const s = session();
    const setsDuring = async (fn: () => void) => (await commandsSent(one, fn)).filter((n) => n === "set").length;
    expect(
      await setsDuring(() => {
        a.remember(s, "p/m");
        for (let i = 0; i < 5; i++) {
          c.advance(TTL / 100);
          a.remember(s, "p/m");
        }
      }),
    ).toBe(1);
    // The local copy still restarts its TTL at every turn.
    c.advance(TTL - 1);
    expect(a.lookup(s)).toBe("p/m");
    expect(await setsDuring(() => a.remember(s, "p/m"))).toBe(1);
    expect(await setsDuring(() => a.remember(s, "p/other"))).toBe(1);
    expect(await eventually(async () => JSON.parse((await raw.get(a.keyOf(s))) ?? "{}").r === "p/other")).toBe(true);
  });

  test("a malformed value is not found", async () => {
    const b = new RedisStickyStore(two, opts);
    const s = session();
    await raw.set(b.keyOf(s), "{not json", "PX", TTL);
    expect(await b.lookup(s)).toBeUndefined();
    await raw.set(b.keyOf(s), JSON.stringify({ r: 7, e: clock.now() + TTL }), "PX", TTL);
    expect(await b.lookup(s)).toBeUndefined();
  });

  test("while Redis is down, this instance's memory alone answers, synchronously", () => {
    const d = new RedisStickyStore(down, opts);
    const s = session();
    expect(d.lookup(s)).toBeUndefined();
    d.remember(s, "p/m");
    expect(d.lookup(s)).toBe("p/m");
  });
});
