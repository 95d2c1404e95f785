// The route of each response ID in shared mode: written through one instance, recalled through
// another, under `${prefix}resp:${workspace}:${id}` with a PX expiry; per instance while Redis is down.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Redis from "ioredis";
import { loadConfig } from "../../../src/config/load";
import { createDeps } from "../../../src/deps";
import { RedisResponseRouteMemory } from "../../../src/inference/responses/redis-route-memory";
import { MemoryResponseRouteMemory, type ServedRoute } from "../../../src/inference/responses/route-memory";
import { randomBase62 } from "../../../src/platform/ids";
import { createLogger } from "../../../src/platform/logger";
import { RedisConnection } from "../../../src/platform/redis";
import { eventually } from "../../support/spawn";
import { deleteKeys, SHARED_REDIS } from "./cluster";

const logger = createLogger("error", () => {});
const prefix = `switchyard-test-${randomBase62(10)}:`;
const url = `${SHARED_REDIS}/6`;
const DAY = 24 * 3_600_000;
const T0 = Date.now();

const platform: ServedRoute = { providerId: "openai", providerModelId: "gpt-5", routeKey: "openai/gpt-5", credential: "platform" };
const byok: ServedRoute = { providerId: "azure", providerModelId: "gpt-5", routeKey: "azure/gpt-5", credential: { byokKeyId: "key-1" } };

describe("RedisResponseRouteMemory", () => {
  let one: RedisConnection;
  let two: RedisConnection;
  let down: RedisConnection;
  let raw: Redis;
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

  test("remembered through one instance, recalled through another, platform and BYOK alike", async () => {
    const a = new RedisResponseRouteMemory(one, 30 * DAY);
    const b = new RedisResponseRouteMemory(two, 30 * DAY);
    const ws = randomBase62(8);
    await a.remember(ws, "resp_1", platform, T0);
    await a.remember(ws, "resp_2", byok, T0);
    expect(await b.recall(ws, "resp_1", T0 + 1)).toEqual(platform);
    expect(await b.recall(ws, "resp_2", T0 + 1)).toEqual(byok);
    expect(await b.recall(ws, "resp_3", T0 + 1)).toBeNull();
  });

  test("the key is prefix + resp:{workspace}:{id} with a PX expiry of the TTL; the value holds no secret", async () => {
    const a = new RedisResponseRouteMemory(one, 2 * DAY);
    const ws = randomBase62(8);
    await a.remember(ws, "resp_k", byok, T0);
    const key = `${prefix}resp:${ws}:resp_k`;
    expect(a.keyOf(ws, "resp_k")).toBe(key);
    const ttl = await raw.pttl(key);
    expect(ttl).toBeGreaterThan(2 * DAY - 60_000);
    expect(ttl).toBeLessThanOrEqual(2 * DAY);
    expect(JSON.parse((await raw.get(key))!)).toEqual({ p: "azure", m: "gpt-5", r: "azure/gpt-5", b: "key-1", e: T0 + 2 * DAY });
  });

  test("a response ID of another workspace is never found", async () => {
    const a = new RedisResponseRouteMemory(one, DAY);
    const [wsA, wsB] = [randomBase62(8), randomBase62(8)];
    await a.remember(wsA, "resp_1", platform, T0);
    expect(await a.recall(wsB, "resp_1", T0)).toBeNull();
    await a.remember(wsB, "resp_1", byok, T0);
    expect(await a.recall(wsA, "resp_1", T0)).toEqual(platform);
    expect(await a.recall(wsB, "resp_1", T0)).toEqual(byok);
  });

  test("past its expiry (the caller's clock) an entry is not recalled, even before Redis drops it", async () => {
    const a = new RedisResponseRouteMemory(one, DAY);
    const ws = randomBase62(8);
    await a.remember(ws, "resp_1", platform, T0);
    expect(await a.recall(ws, "resp_1", T0 + DAY - 1)).toEqual(platform);
    expect(await a.recall(ws, "resp_1", T0 + DAY)).toBeNull();
  });

  test("Redis drops the key itself once the TTL passes", async () => {
    const a = new RedisResponseRouteMemory(one, 200);
    const ws = randomBase62(8);
    await a.remember(ws, "resp_1", platform, Date.now());
    expect(await raw.exists(a.keyOf(ws, "resp_1"))).toBe(1);
    expect(await eventually(async () => (await raw.exists(a.keyOf(ws, "resp_1"))) === 0, 3_000, 50)).toBe(true);
  });

  test("a malformed stored value is not found", async () => {
    const a = new RedisResponseRouteMemory(one, DAY);
    const ws = randomBase62(8);
    await raw.set(a.keyOf(ws, "bad_json"), "{not json", "PX", 60_000);
    await raw.set(a.keyOf(ws, "bad_shape"), JSON.stringify({ p: "openai", e: T0 + DAY }), "PX", 60_000);
    expect(await a.recall(ws, "bad_json", T0)).toBeNull();
    expect(await a.recall(ws, "bad_shape", T0)).toBeNull();
  });

  test("with Redis down, entries are kept and recalled per instance", async () => {
    const local = new RedisResponseRouteMemory(down, DAY);
    const ws = randomBase62(8);
    await local.remember(ws, "resp_1", byok, T0);
    expect(await local.recall(ws, "resp_1", T0)).toEqual(byok);
    expect(await local.recall(ws, "resp_1", T0 + DAY)).toBeNull();
    expect(await new RedisResponseRouteMemory(down, DAY).recall(ws, "resp_1", T0)).toBeNull();
  });
});

describe("createDeps", () => {
  test("builds the memory store on its own and the Redis store in shared mode, both with the configured TTL", async () => {
    const env = { DATABASE_URL: "sqlite::memory:" };
    const alone = await createDeps(loadConfig(env), logger);
    const shared = await createDeps(loadConfig({ ...env, REDIS_URL: url, REDIS_PREFIX: prefix }), logger);
    try {
      expect(alone.responseRoutes).toBeInstanceOf(MemoryResponseRouteMemory);
      expect((alone.responseRoutes as MemoryResponseRouteMemory).ttlMs).toBe(30 * DAY);
      expect(shared.responseRoutes).toBeInstanceOf(RedisResponseRouteMemory);
      expect(shared.responseRoutes).toBe(shared.shared!.responseRoutes);
      expect((shared.responseRoutes as RedisResponseRouteMemory).ttlMs).toBe(30 * DAY);
    } finally {
      await Promise.all([alone.close(), shared.close()]);
    }
  });
});
