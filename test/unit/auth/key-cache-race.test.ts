// Revocation race: a key-cache load already in flight when a revocation reaches the cache (put() of the
// revoked row, or evictById()) must not overwrite it with the row it read before. The repository's
// reads are promises this test resolves by hand, so the interleaving is exact.
import { describe, expect, test } from "bun:test";
import { ApiKeyCache } from "../../../src/auth/key-cache";
import { generateApiKey } from "../../../src/auth/key-format";
import type { ApiKeyRepo, ApiKeyRow } from "../../../src/management/api-keys/repo";
import { keyRow } from "../../support/key-rows";

/** A repository whose byHash() calls wait until the test answers them, in order. */
function handRepo() {
  const pending: ((row: ApiKeyRow | undefined) => void)[] = [];
  const repo = {
    byHash: () => new Promise<ApiKeyRow | undefined>((resolve) => pending.push(resolve)),
    touch: async () => undefined,
  } as unknown as ApiKeyRepo;
  return { repo, pending };
}

describe("key cache revocation race", () => {
  test("a revocation put() while a first load is in flight wins over the row that load read", async () => {
    const { repo, pending } = handRepo();
    const cache = new ApiKeyCache(repo);
    const key = generateApiKey();
    const answer = cache.verify(key, 1_000);
    expect(pending.length).toBe(1);
    cache.put(keyRow(key, 1_500));
    pending[0]!(keyRow(key));
    expect(await answer).toEqual({ ok: false, reason: "revoked" });
    expect(cache.verify(key, 1_100)).toEqual({ ok: false, reason: "revoked" });
  });

  test("an evictById() while a stale entry is re-read is not undone by the row read before it", async () => {
    const { repo, pending } = handRepo();
    const cache = new ApiKeyCache(repo);
    const key = generateApiKey();
    cache.put(keyRow(key));
    // Stale (older than the 4 s limit): the request re-reads before answering.
    const answer = cache.verify(key, Date.now() + 10_000);
    expect(pending.length).toBe(1);
    cache.evictById("key_1");
    pending[0]!(keyRow(key));
    // The change wins: the key is read again, after the revocation was committed.
    for (let i = 0; i < 10 && pending.length < 2; i++) await Promise.resolve();
    expect(pending.length).toBe(2);
    pending[1]!(keyRow(key, 2_000));
    expect(await answer).toEqual({ ok: false, reason: "revoked" });
  });

  test("a load that no change interrupted caches its row", async () => {
    const { repo, pending } = handRepo();
    const cache = new ApiKeyCache(repo);
    const key = generateApiKey();
    const answer = cache.verify(key, Date.now());
    pending[0]!(keyRow(key));
    expect((await answer).ok).toBe(true);
    expect(cache.verify(key)).toMatchObject({ ok: true });
  });
});
