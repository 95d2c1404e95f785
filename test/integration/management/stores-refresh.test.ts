// The hot-path stores heal on their own: a change committed by another process (here: through a second
// connection, straight to the database) reaches routing within a few refresh intervals, without any call
// through this process; on SQLite, ticks with nothing committed elsewhere skip the re-read.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTestDb, testDatabaseKinds, type TestDb } from "../../support/databases";
import { openDatabase, type Database } from "../../../src/platform/db/database";
import { createLogger } from "../../../src/platform/logger";
import { ApiKeyCache } from "../../../src/auth/key-cache";
import { apiKeyRepo } from "../../../src/management/api-keys/repo";
import { workspaceRepo } from "../../../src/management/workspaces/repo";
import { createManagement, type Management } from "../../../src/management/module";
import { createManagementStores } from "../../../src/management/stores";
import { byokAad } from "../../../src/management/byok-keys/store";
import { sealSecret } from "../../../src/crypto/secret-box";
import { newId } from "../../../src/platform/ids";
import type { Catalog } from "../../../src/catalog/types";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";

const kinds = await testDatabaseKinds();

async function until(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met before the deadline");
    await Bun.sleep(10);
  }
}

for (const kind of kinds) {
  describe(`store refresh on ${kind}`, () => {
    let testDb: TestDb;
    let db: Database;
    /** Another connection to the same database: what the CLI or another instance writes through. */
    let elsewhere: Database;
    let m: Management;
    const master = { bytes: randomBytes(32), id: "test-master" };
    beforeAll(async () => {
      testDb = makeTestDb(kind);
      db = await openDatabase(testDb.url);
      await db.migrate();
      elsewhere = await openDatabase(testDb.url);
      const repos = { workspaces: workspaceRepo(db), apiKeys: apiKeyRepo(db) };
      m = createManagement({
        db,
        logger: createLogger("error"),
        shared: false,
        keys: new ApiKeyCache(repos.apiKeys),
        repos,
        catalog: () => ({ providers: new Map() }) as unknown as Catalog,
        stores: createManagementStores({ db, logger: createLogger("error"), masterKey: () => master, refreshMs: 50 }),
      });
      await m.start();
    });
    afterAll(async () => {
      m.stop();
      await elsewhere.close();
      await db.close();
      await testDb.cleanup();
    });

    test("routing defaults and BYOK keys written elsewhere become visible without a call", async () => {
      const ws = crypto.randomUUID();
      await elsewhere.tx((o) => m.repos.routingDefaults.patch(o, ws, { optimize: "balanced", allow_fallbacks: false }, Date.now()));
      const id = newId();
      const now = Date.now();
      await elsewhere.orm.insert(elsewhere.t.byokKeys).values({
        id,
        workspaceId: ws,
        provider: "alpha",
        name: "elsewhere",
        keyPrefix: "sk-e…",
        isDefault: true,
        disabled: false,
        validationStatus: "valid",
        accountTier: "free",
        accountTierSource: "fallback",
        lastValidatedAt: now,
        createdAt: now,
        updatedAt: now,
        ...sealSecret(master, "sk-elsewhere-0123456789", byokAad({ workspaceId: ws, id })),
      });
      await until(() => m.routingDefaults.get(ws).optimize === "balanced" && m.byok.defaultKeyFor(ws, "alpha") !== null);
      expect(m.routingDefaults.get(ws).allow_fallbacks).toBe(false);
      expect(m.byok.defaultKeyFor(ws, "alpha")).toEqual({ byokKeyId: id, secret: "sk-elsewhere-0123456789", accountTier: "free" });
      // And removals heal too.
      await elsewhere.tx((o) => m.repos.routingDefaults.clear(o, ws));
      await elsewhere.tx((o) => m.repos.byok.remove(o, ws, id));
      await until(() => m.routingDefaults.stored(ws) === undefined && m.byok.defaultKeyFor(ws, "alpha") === null);
    });

    test("on SQLite a refresh tick re-reads only after another connection committed; this connection's own writes do not count", async () => {
      m.stop(); // the ticks are driven by hand here
      try {
        await m.refresh(true);
        // This connection's own commits (the record writer's, the API's) apply to the stores directly.
        await db.tx((o) => m.repos.routingDefaults.patch(o, crypto.randomUUID(), { optimize: "balanced" }, Date.now()));
        // Postgres has no version to compare: every tick re-reads.
        expect(await m.refresh()).toBe(kind !== "sqlite");
        const ws = crypto.randomUUID();
        await elsewhere.tx((o) => m.repos.routingDefaults.patch(o, ws, { optimize: "balanced" }, Date.now()));
        expect(await m.refresh()).toBe(true);
        expect(m.routingDefaults.get(ws).optimize).toBe("balanced");
        expect(await m.refresh()).toBe(kind !== "sqlite");
      } finally {
        await m.start();
      }
    });

    test("a key sealed under another master key is skipped, not fatal", async () => {
      const ws = crypto.randomUUID();
      const id = newId();
      const now = Date.now();
      await db.orm.insert(db.t.byokKeys).values({
        id,
        workspaceId: ws,
        provider: "alpha",
        name: "old",
        keyPrefix: "sk-o…",
        isDefault: true,
        disabled: false,
        validationStatus: "valid",
        accountTier: null,
        accountTierSource: null,
        lastValidatedAt: now,
        createdAt: now,
        updatedAt: now,
        ...sealSecret({ bytes: randomBytes(32), id: "rotated-away" }, "sk-old-0123456789", byokAad({ workspaceId: ws, id })),
      });
      await m.reload();
      expect(m.byok.defaultKeyFor(ws, "alpha")).toBeNull();
    });

    test("the key lookup by hash (one prepared query, reused) finds each key by its own hash and sees a revocation committed elsewhere", async () => {
      const ws = crypto.randomUUID();
      const a = await m.repos.apiKeys.create({ workspaceId: ws, name: "a", scopes: ["usage:read"] });
      const b = await m.repos.apiKeys.create({ workspaceId: ws, name: "b", scopes: ["usage:read"] });
      expect((await m.repos.apiKeys.byHash(a.row.keyHash))?.id).toBe(a.row.id);
      expect((await m.repos.apiKeys.byHash(b.row.keyHash))?.id).toBe(b.row.id);
      expect(await m.repos.apiKeys.byHash("0".repeat(64))).toBeUndefined();
      // Straight to the database, as the CLI or another instance would.
      await db.orm.update(db.t.apiKeys).set({ revokedAt: 1234 }).where(eq(db.t.apiKeys.id, a.row.id));
      expect((await m.repos.apiKeys.byHash(a.row.keyHash))?.revokedAt).toBe(1234);
      expect((await m.repos.apiKeys.byHash(b.row.keyHash))?.revokedAt).toBeNull();
    });
  });
}
