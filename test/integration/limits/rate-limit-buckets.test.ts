// Rate limits cannot be multiplied by minting or inventing keys: `key_creation` is one bucket per
// workspace whichever of its keys calls, and keys the gateway does not know share their client
// address's bucket, so once the address is over its limit a new random key costs no database lookup.
// In memory mode and in shared (Redis) mode, with tuning on (the inference POSTs served from Bun's route
// table) and off (everything through Elysia), which must limit alike.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GENEROUS_LIMITS, startServer, type InProcessServer } from "../../support/server";
import { generateApiKey } from "../../../src/auth/key-format";
import { createApp } from "../../../src/app";
import type { ApiKeyRepo } from "../../../src/management/api-keys/repo";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const MODES: { name: string; db: "sqlite" | "postgres"; env: Record<string, string> }[] = [
  { name: "memory mode", db: "sqlite", env: {} },
  { name: "shared (Redis) mode", db: "postgres", env: { REDIS_URL } },
];

/** Counts the key cache's database reads (the repository is the real one, only observed). */
function countLookups(s: InProcessServer): () => number {
  const repo = (s.deps.keys as unknown as { repo: ApiKeyRepo }).repo;
  const read = repo.byHash.bind(repo);
  let n = 0;
  repo.byHash = (hash) => {
    n++;
    return read(hash);
  };
  return () => n;
}

const TUNING = ["on", "off"] as const;

for (const mode of MODES) {
  for (const tuning of TUNING) describeMode(mode, tuning);
}

function describeMode(mode: (typeof MODES)[number], tuning: (typeof TUNING)[number]) {
  describe(`rate-limit buckets in ${mode.name}, tuning ${tuning}`, () => {
    let s: InProcessServer;
    beforeAll(async () => {
      s = await startServer({
        db: mode.db,
        env: { ...mode.env, SWITCHYARD_TUNING: tuning },
        configFile: { limits: { ...GENEROUS_LIMITS, key_creation: { per_minute: 3 }, inference: { per_minute: 3 } } },
        logLevel: "warn",
      });
    });
    afterAll(() => s.stop());

    test("key_creation is bucketed per workspace: a key minted by a key gets no allowance of its own", async () => {
      const create = (key: string) =>
        s.fetch(`/v1/workspaces/${s.workspaceId}/api-keys`, {
          method: "POST",
          key,
          body: JSON.stringify({ name: "m", scopes: ["keys:write"] }),
        });
      // The admin key's first request (not read yet): its address pays a token, and so does the workspace.
      const first = await create(s.adminKey);
      expect(first.ok).toBe(true);
      const minted = ((await first.json()) as { key: string }).key;
      expect((await create(minted)).ok).toBe(true);
      expect((await create(s.adminKey)).ok).toBe(true);
      // Three creations in the workspace: both keys are now over the limit.
      const over = await create(minted);
      expect(over.status).toBe(429);
      expect(((await over.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
      expect((await create(s.adminKey)).status).toBe(429);
    });

    test("unknown keys are bucketed per client address, and over the limit cost no database lookup", async () => {
      // The admin key is known (and cached): its own bucket, untouched by the flood below.
      expect((await s.fetch("/v1/models")).status).toBe(200);
      const lookups = countLookups(s);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await s.fetch("/v1/models", { key: generateApiKey() })).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
      expect(lookups()).toBe(3);
      // The inference POSTs (served ahead of Elysia's router with tuning on) take from the same bucket, before any lookup.
      const chat = { model: "x", messages: [{ role: "user", content: "Hi" }] };
      const post = await s.fetch("/v1/chat/completions", { method: "POST", key: generateApiKey(), body: JSON.stringify(chat) });
      expect(post.status).toBe(429);
      expect(lookups()).toBe(3);
      // Without a key at all: the same address bucket.
      expect((await s.fetch("/v1/models", { key: null })).status).toBe(429);
      expect((await s.fetch("/v1/models")).status).toBe(200);
    });

    test("Elysia's inference routes (app.handle, and the server with tuning off) limit a key not read yet by address first, charging it once", async () => {
      // app.handle has no client address: its own "unknown" address bucket, untouched by the tests above.
      const app = createApp(s.deps);
      const chat = JSON.stringify({ model: "x", messages: [{ role: "user", content: "Hi" }] });
      const post = (key: string) =>
        app.handle(
          new Request("http://local/v1/chat/completions", { method: "POST", headers: { authorization: `Bearer ${key}` }, body: chat }),
        );
      const lookups = countLookups(s);
      // A valid key never read yet: a token from the address, then one from its own bucket (2 of 3 left, not 1).
      const { key } = await s.deps.repos.apiKeys.create({ workspaceId: s.workspaceId, name: "fresh", scopes: [] });
      expect((await post(key)).headers.get("x-ratelimit-remaining-requests")).toBe("2");
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await post(generateApiKey())).status);
      // The fresh key took the address's first token: two unknown keys fit (401, one lookup each), then the
      // address is over its 3 and no key is read.
      expect(statuses).toEqual([401, 401, 429, 429]);
      expect(lookups()).toBe(3);
    });
  });
}
