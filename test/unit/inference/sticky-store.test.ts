// The memory sticky store on a simulated clock: an entry lives for the TTL from its last use, a
// remembered route replaces the one before, and beyond its bound the least recently used go first.
import { describe, expect, test } from "bun:test";
import { MemoryStickyStore } from "../../../src/inference/sticky/store";
import { FakeClock } from "../../support/fake-clock";

const TTL = 600_000;

function store(maxEntries?: number) {
  const clock = new FakeClock();
  return { clock, s: new MemoryStickyStore({ ttlMs: TTL, maxEntries, now: () => clock.now() }) };
}

describe("MemoryStickyStore", () => {
  test("a session is stuck to its route until the TTL has passed since it was remembered", () => {
    const { clock, s } = store();
    expect(s.lookup("a")).toBeUndefined();
    s.remember("a", "p/m");
    clock.advance(TTL - 1);
    expect(s.lookup("a")).toBe("p/m");
    clock.advance(1);
    expect(s.lookup("a")).toBeUndefined();
    expect(s.size).toBe(0);
  });

  test("each use restarts the TTL", () => {
    const { clock, s } = store();
    s.remember("a", "p/m");
    for (let i = 0; i < 5; i++) {
      clock.advance(TTL - 1_000);
      expect(s.lookup("a")).toBe("p/m");
      s.remember("a", "p/m");
    }
    clock.advance(TTL);
    expect(s.lookup("a")).toBeUndefined();
  });

  test("a lookup alone does not extend the TTL (only a call the route serves does)", () => {
    const { clock, s } = store();
    s.remember("a", "p/m");
    clock.advance(TTL - 1);
    expect(s.lookup("a")).toBe("p/m");
    clock.advance(1);
    expect(s.lookup("a")).toBeUndefined();
  });

  test("the latest route wins", () => {
    const { s } = store();
    s.remember("a", "p/m");
    s.remember("a", "q/m");
    expect(s.lookup("a")).toBe("q/m");
    expect(s.size).toBe(1);
  });

  test("bounded: beyond maxEntries the least recently remembered is forgotten", () => {
    const { s } = store(3);
    for (const k of ["a", "b", "c"]) s.remember(k, `p/${k}`);
    s.remember("a", "p/a"); // a is now the most recent
    s.remember("d", "p/d");
    expect(s.size).toBe(3);
    expect(s.lookup("b")).toBeUndefined();
    expect([s.lookup("a"), s.lookup("c"), s.lookup("d")]).toEqual(["p/a", "p/c", "p/d"]);
  });

  test("expired entries at the front are dropped as new ones come", () => {
    const { clock, s } = store();
    for (let i = 0; i < 100; i++) s.remember(`old-${i}`, "p/m");
    clock.advance(TTL);
    s.remember("new", "p/m");
    expect(s.size).toBe(1);
  });

  test("an entry put with its own expiry (learnt from Redis) keeps it", () => {
    const { clock, s } = store();
    s.put("a", "p/m", clock.now() + 5_000);
    clock.advance(4_999);
    expect(s.lookup("a")).toBe("p/m");
    clock.advance(1);
    expect(s.lookup("a")).toBeUndefined();
  });
});
