// The in-memory route of each response ID: found only in its own workspace, forgotten after the TTL
// (an injected clock, no waiting) and beyond the size cap (oldest first).
import { describe, expect, test } from "bun:test";
import { MAX_RESPONSE_ID_LENGTH, MemoryResponseRouteMemory, type ServedRoute } from "../../../src/inference/responses/route-memory";

const T0 = 1_800_000_000_000;
const DAY = 24 * 3_600_000;
const days = (n: number) => ({ ttlMs: n * DAY });
const platform: ServedRoute = { providerId: "openai", providerModelId: "gpt-5", routeKey: "openai/gpt-5", credential: "platform" };
const byok: ServedRoute = { providerId: "azure", providerModelId: "gpt-5", routeKey: "azure/gpt-5", credential: { byokKeyId: "key-1" } };

describe("MemoryResponseRouteMemory", () => {
  test("recalls the route and credential a response was served by, platform or BYOK", () => {
    const m = new MemoryResponseRouteMemory(days(30));
    m.remember("ws-a", "resp_1", platform, T0);
    m.remember("ws-a", "resp_2", byok, T0);
    expect(m.recall("ws-a", "resp_1", T0 + 1)).toEqual(platform);
    expect(m.recall("ws-a", "resp_2", T0 + 1)).toEqual(byok);
    expect(m.recall("ws-a", "resp_3", T0 + 1)).toBeNull();
  });

  test("a response ID of another workspace is never found", () => {
    const m = new MemoryResponseRouteMemory(days(30));
    m.remember("ws-a", "resp_1", platform, T0);
    expect(m.recall("ws-b", "resp_1", T0)).toBeNull();
    // The same upstream ID in two workspaces keeps two routes.
    m.remember("ws-b", "resp_1", byok, T0);
    expect(m.recall("ws-a", "resp_1", T0)).toEqual(platform);
    expect(m.recall("ws-b", "resp_1", T0)).toEqual(byok);
  });

  test("an entry is found until its TTL passes, then not", () => {
    const m = new MemoryResponseRouteMemory({ ttlMs: 1_000 });
    m.remember("ws-a", "resp_1", platform, T0);
    expect(m.recall("ws-a", "resp_1", T0 + 999)).toEqual(platform);
    expect(m.recall("ws-a", "resp_1", T0 + 1_000)).toBeNull();
    expect(m.size).toBe(0);
    const d = new MemoryResponseRouteMemory(days(30));
    d.remember("ws-a", "resp_1", platform, T0);
    expect(d.recall("ws-a", "resp_1", T0 + 30 * DAY - 1)).toEqual(platform);
    expect(d.recall("ws-a", "resp_1", T0 + 30 * DAY)).toBeNull();
  });

  test("remembering again renews the expiry and replaces the route", () => {
    const m = new MemoryResponseRouteMemory({ ttlMs: 1_000 });
    m.remember("ws-a", "resp_1", platform, T0);
    m.remember("ws-a", "resp_1", byok, T0 + 800);
    expect(m.recall("ws-a", "resp_1", T0 + 1_500)).toEqual(byok);
    expect(m.size).toBe(1);
  });

  test("beyond the cap the oldest entries are forgotten, the newest kept", () => {
    const m = new MemoryResponseRouteMemory({ ...days(30), maxEntries: 3 });
    for (let i = 1; i <= 5; i++) m.remember("ws-a", `resp_${i}`, platform, T0 + i);
    expect(m.size).toBe(3);
    expect(m.recall("ws-a", "resp_1", T0 + 10)).toBeNull();
    expect(m.recall("ws-a", "resp_2", T0 + 10)).toBeNull();
    for (const i of [3, 4, 5]) expect(m.recall("ws-a", `resp_${i}`, T0 + 10)).toEqual(platform);
  });

  test("re-remembering an entry makes it the newest, so the cap evicts others first", () => {
    const m = new MemoryResponseRouteMemory({ ...days(30), maxEntries: 2 });
    m.remember("ws-a", "resp_1", platform, T0);
    m.remember("ws-a", "resp_2", platform, T0 + 1);
    m.remember("ws-a", "resp_1", byok, T0 + 2);
    m.remember("ws-a", "resp_3", platform, T0 + 3);
    expect(m.recall("ws-a", "resp_2", T0 + 4)).toBeNull();
    expect(m.recall("ws-a", "resp_1", T0 + 4)).toEqual(byok);
    expect(m.recall("ws-a", "resp_3", T0 + 4)).toEqual(platform);
  });

  test("expired entries are dropped when new ones arrive, below the cap too", () => {
    const m = new MemoryResponseRouteMemory({ ttlMs: 1_000 });
    for (let i = 0; i < 10; i++) m.remember("ws-a", `old_${i}`, platform, T0);
    m.remember("ws-a", "new", platform, T0 + 1_000);
    expect(m.size).toBe(1);
    expect(m.recall("ws-a", "new", T0 + 1_000)).toEqual(platform);
  });

  test("an empty or overlong response ID is neither remembered nor looked up", () => {
    const m = new MemoryResponseRouteMemory(days(30));
    const long = "r".repeat(MAX_RESPONSE_ID_LENGTH + 1);
    m.remember("ws-a", long, platform, T0);
    m.remember("ws-a", "", platform, T0);
    expect(m.size).toBe(0);
    expect(m.recall("ws-a", long, T0)).toBeNull();
    const atLimit = "r".repeat(MAX_RESPONSE_ID_LENGTH);
    m.remember("ws-a", atLimit, platform, T0);
    expect(m.recall("ws-a", atLimit, T0)).toEqual(platform);
  });
});
