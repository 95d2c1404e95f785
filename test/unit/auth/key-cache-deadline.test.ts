// The key cache never holds a request for a database that does not answer (issue 52 item 16): a stale
// entry's re-read is bounded and the cached row answers past it; a key never seen gets "unavailable"
// (the edge's 503) after a bounded lookup, or at once when the lookup fails.
import { describe, expect, test } from "bun:test";
import { ApiKeyCache } from "../../../src/auth/key-cache";
import { generateApiKey } from "../../../src/auth/key-format";
import type { ApiKeyRepo, ApiKeyRow } from "../../../src/management/api-keys/repo";
import { withDeadline } from "../../../src/platform/deadline";
import { keyRow } from "../../support/key-rows";

/** A repository whose reads answer `row` until `down` is set, then never answer (or fail, with `failing`). */
function outageRepo(row: ApiKeyRow | undefined) {
  const state = { down: false, failing: false, reads: 0 };
  const repo = {
    byHash: () => {
      state.reads++;
      if (!state.down) return Promise.resolve(row);
      return state.failing ? Promise.reject(new Error("connect ECONNREFUSED")) : new Promise(() => {});
    },
    touch: async () => undefined,
  } as unknown as ApiKeyRepo;
  return { repo, state };
}

const timed = async <T>(p: T | Promise<T>) => {
  const t0 = performance.now();
  const value = await p;
  return { value, ms: performance.now() - t0 };
};

describe("key cache with the database away", () => {
  test("a stale entry whose re-read does not answer is served from the cache after a bounded wait", async () => {
    const key = generateApiKey();
    const { repo, state } = outageRepo(keyRow(key));
    const cache = new ApiKeyCache(repo);
    const t = Date.now();
    expect((await cache.verify(key, t)).ok).toBe(true);
    state.down = true;
    // Past MAX_STALE_MS (4 s): the entry must be re-read before answering.
    const stale = await timed(cache.verify(key, t + 10_000));
    expect(stale.value.ok).toBe(true);
    expect(stale.ms).toBeLessThan(1_000);
    // The answer is cached again: the next calls do not wait at all.
    const next = cache.verify(key, t + 10_001);
    expect(next instanceof Promise).toBe(false);
  });

  test("a stale entry whose re-read is only slow is served from the cache, and the read applies when it lands", async () => {
    const key = generateApiKey();
    let answer = (_: ApiKeyRow | undefined) => {};
    let reads = 0;
    const repo = {
      byHash: () => (reads++ === 0 ? Promise.resolve(keyRow(key)) : new Promise<ApiKeyRow | undefined>((r) => (answer = r))),
      touch: async () => undefined,
    } as unknown as ApiKeyRepo;
    const cache = new ApiKeyCache(repo);
    const t = Date.now();
    expect((await cache.verify(key, t)).ok).toBe(true);
    const stale = await timed(cache.verify(key, t + 10_000));
    expect(stale.value.ok).toBe(true);
    expect(stale.ms).toBeLessThan(1_000);
    // The slow read finally answers: the key was revoked elsewhere meanwhile.
    answer(keyRow(key, t + 5_000));
    await Bun.sleep(1);
    expect(cache.verify(key)).toEqual({ ok: false, reason: "revoked" });
    expect(reads).toBe(2);
  });

  test("a key never seen is 'unavailable' after a bounded lookup, at once when the lookup fails, and for a second after; never cached as unknown", async () => {
    const { repo, state } = outageRepo(undefined);
    const cache = new ApiKeyCache(repo);
    state.down = true;
    const hanging = await timed(cache.verify(generateApiKey()));
    expect(hanging.value).toEqual({ ok: false, reason: "unavailable" });
    expect(hanging.ms).toBeGreaterThan(500);
    expect(hanging.ms).toBeLessThan(3_000);
    state.failing = true;
    const key = generateApiKey();
    const failed = await timed(cache.verify(key));
    expect(failed.value).toEqual({ ok: false, reason: "unavailable" });
    expect(failed.ms).toBeLessThan(500);
    // For a second the answer stands without another lookup (the rate limiter's check and
    // authentication's both ask); it is not remembered as unknown: afterwards the key is looked up again.
    const reads = state.reads;
    expect(cache.verify(key)).toEqual({ ok: false, reason: "unavailable" });
    expect(state.reads).toBe(reads);
    state.down = false;
    expect(await cache.verify(key, Date.now() + 1_500)).toEqual({ ok: false, reason: "unknown" });
    expect(state.reads).toBe(reads + 1);
  });
});

describe("withDeadline", () => {
  test("answers the work's value when it comes first, the fallback's after the deadline; a late rejection is swallowed", async () => {
    expect(await withDeadline(Promise.resolve(1), 1_000, () => 2)).toBe(1);
    expect(await withDeadline(new Promise<number>(() => {}), 10, () => 2)).toBe(2);
    let rejectLate!: (e: Error) => void;
    const late = new Promise<number>((_, reject) => (rejectLate = reject));
    expect(await withDeadline(late, 10, () => 3)).toBe(3);
    rejectLate(new Error("late"));
    await Bun.sleep(1);
    await expect(withDeadline(Promise.reject(new Error("down")), 1_000, () => 4)).rejects.toThrow("down");
  });
});
