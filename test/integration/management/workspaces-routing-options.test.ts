// The adaptive router's workspace defaults (issue 54 item 5): stored, PATCHable (null resets), refused
// with a 400 naming the field and nothing written, reported with their effective values; and a database
// from before migration 0004 upgrades in place with its routing defaults intact.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { Database as BunSqlite } from "bun:sqlite";
import { testDatabaseKinds, postgresTestDb, PG_URL } from "../../support/databases";
import { MIGRATIONS_TABLE, openDatabase } from "../../../src/platform/db/database";
import { postgresMigrations, sqliteMigrations } from "../../../src/platform/db/migrations.generated";
import { routingDefaultsRepo } from "../../../src/management/routing-defaults/repo";
import { sqliteAtMigration } from "../metering/test-db";
import type { WorkspaceRoutingDefaults } from "../../../src/routing/types";
import { openSession, type Session } from "./harness";

const kinds = await testDatabaseKinds();

const NEW_DEFAULTS = {
  min_throughput_tps: null,
  ttft_percentile: "p50",
  throughput_percentile: "p50",
  min_success_rate: null,
  prefer: [],
  only_byok: false,
  only_platform: false,
  require_parameters: false,
};

const SET: WorkspaceRoutingDefaults = {
  min_throughput_tps: 42.5,
  ttft_percentile: "p95",
  throughput_percentile: "p95",
  min_success_rate: 0.95,
  prefer: ["alpha", "beta"],
  only_byok: true,
  only_platform: false,
  require_parameters: true,
};

for (const kind of kinds) {
  describe(`the router's workspace defaults on ${kind}`, () => {
    let x: Session;
    const path = () => x.w("/routing-defaults");
    const fromDb = () => x.s.deps.management.repos.routingDefaults.get(x.ws);
    const updates = async () => (await x.auditRows()).filter((a) => a.type === "routing_defaults.updated").length;
    beforeAll(async () => {
      x = await openSession(kind);
    });
    afterAll(async () => {
      await x.stop();
    });

    test("never set: GET reports every new field at its built-in default", async () => {
      const r = await x.call("GET", path());
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject(NEW_DEFAULTS);
    });

    test("set: PATCH stores every field, GET and the database read them back, the router's store has them", async () => {
      const r = await x.call("PATCH", path(), { body: SET });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ ...SET, optimize: "cost-focus", providers: [] });
      expect((await x.call("GET", path())).json).toMatchObject(SET);
      expect((await fromDb())?.defaults).toEqual(SET);
      expect(x.s.deps.inference.routingDefaults.get(x.ws)).toMatchObject(SET);
      // Another process would read the same row.
      await x.s.deps.management.reload();
      expect(x.s.deps.management.routingDefaults.stored(x.ws)).toEqual(SET);
    });

    test("reset: null puts each field back to its built-in default and clears its column", async () => {
      const nulls = Object.fromEntries(Object.keys(SET).map((k) => [k, null]));
      const r = await x.call("PATCH", path(), { body: nulls });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject(NEW_DEFAULTS);
      expect((await fromDb())?.defaults).toEqual({});
      expect(x.s.deps.management.routingDefaults.stored(x.ws)).toEqual({});
    });

    test("a partial patch leaves the other fields alone; a fractional floor round-trips exactly", async () => {
      await x.call("PATCH", path(), { body: { min_success_rate: 0.999, prefer: ["beta"] } });
      const r = await x.call("PATCH", path(), { body: { ttft_percentile: "p95" } });
      expect(r.json).toMatchObject({ min_success_rate: 0.999, prefer: ["beta"], ttft_percentile: "p95", throughput_percentile: "p50" });
      expect((await fromDb())?.defaults).toEqual({ min_success_rate: 0.999, prefer: ["beta"], ttft_percentile: "p95" });
    });

    test("invalid values: 400 naming the field, and nothing written", async () => {
      const before = await fromDb();
      const audited = await updates();
      const cases: [Record<string, unknown>, string][] = [
        [{ min_throughput_tps: -1 }, "min_throughput_tps"],
        [{ min_throughput_tps: "fast" }, "min_throughput_tps"],
        [{ ttft_percentile: "p99" }, "ttft_percentile"],
        [{ throughput_percentile: 95 }, "throughput_percentile"],
        [{ min_success_rate: 1.01 }, "min_success_rate"],
        [{ min_success_rate: -0.5 }, "min_success_rate"],
        [{ prefer: "alpha" }, "prefer"],
        [{ prefer: Array(101).fill("alpha") }, "prefer"],
        [{ prefer: ["alpha", "nope"] }, "prefer[1]"],
        [{ only_byok: "yes" }, "only_byok"],
        [{ only_platform: 1 }, "only_platform"],
        [{ require_parameters: "true" }, "require_parameters"],
        [{ only_byok: true, only_platform: true }, "only_platform"],
        // A valid field next to an invalid one is not written either.
        [{ min_success_rate: 0.5, ttft_percentile: "p75" }, "ttft_percentile"],
      ];
      for (const [body, param] of cases) {
        const r = await x.call("PATCH", path(), { body });
        expect({ body, status: r.status }).toEqual({ body, status: 400 });
        expect(r.json.error).toMatchObject({ code: "invalid_parameter", param });
        expect(r.json.error.message).toContain(param);
      }
      expect(await fromDb()).toEqual(before);
      expect(await updates()).toBe(audited);
    });

    test("only_byok and only_platform: both true after the patch is applied to the stored row → 400 only_platform, rolled back", async () => {
      await x.call("PATCH", path(), { body: { only_byok: true } });
      const before = await fromDb();
      const audited = await updates();
      const r = await x.call("PATCH", path(), { body: { only_platform: true, require_parameters: true } });
      expect(r.status).toBe(400);
      expect(r.json.error).toMatchObject({ code: "invalid_parameter", param: "only_platform" });
      expect(await fromDb()).toEqual(before);
      expect(await updates()).toBe(audited);
      expect(x.s.deps.management.routingDefaults.get(x.ws)).toMatchObject({
        only_byok: true,
        only_platform: false,
        require_parameters: false,
      });
      // Switching in one patch (one off, the other on) is fine.
      const ok = await x.call("PATCH", path(), { body: { only_byok: false, only_platform: true } });
      expect(ok.status).toBe(200);
      expect(ok.json).toMatchObject({ only_byok: false, only_platform: true });
      const reset = await x.call("PATCH", path(), { body: { only_byok: null, only_platform: null } });
      expect(reset.json).toMatchObject({ only_byok: false, only_platform: false });
    });

    test("DELETE clears the new fields too and reports their defaults", async () => {
      await x.call("PATCH", path(), { body: SET });
      const r = await x.call("DELETE", path());
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ ...NEW_DEFAULTS, updated_at: null });
      expect(await fromDb()).toBeUndefined();
    });
  });
}

const OLD_ROW = "INSERT INTO routing_defaults (workspace_id, optimize, exclude_providers, allow_fallbacks, updated_at) VALUES ";

describe("a database from before migration 0004 keeps its routing defaults", () => {
  test("sqlite", async () => {
    const before = sqliteMigrations.findIndex((m) => m.tag === "0004_routing_options");
    expect(before).toBe(4);
    const { path, raw: old, cleanup } = sqliteAtMigration(before);
    try {
      old.run(`${OLD_ROW} ('ws', 'ttft', '["beta"]', 0, 7)`);
      old.close();
      const db = await openDatabase(`sqlite:${path}`);
      try {
        expect(await db.pendingMigrations()).toEqual(sqliteMigrations.slice(before).map((m) => m.tag));
        await db.migrate();
        const row = await routingDefaultsRepo(db).get("ws");
        expect(row).toEqual({ defaults: { optimize: "ttft", exclude_providers: ["beta"], allow_fallbacks: false }, updatedAt: 7 });
        const after = await db.tx((o) => routingDefaultsRepo(db).patch(o, "ws", { min_success_rate: 0.9, only_platform: true }, 8));
        expect(after.defaults).toMatchObject({ optimize: "ttft", min_success_rate: 0.9, only_platform: true });
      } finally {
        await db.close();
      }
      const check = new BunSqlite(path, { readonly: true });
      const cols = (check.query("PRAGMA table_info(routing_defaults)").all() as { name: string }[]).map((c) => c.name);
      check.close();
      expect(cols).toContain("require_parameters");
    } finally {
      cleanup();
    }
  });

  test.if(kinds.includes("postgres"))("postgres", async () => {
    const t = postgresTestDb();
    const schema = new URL(t.url).searchParams.get("schema")!;
    const sql = postgres(PG_URL, { max: 1, onnotice: () => {} });
    try {
      // The schema as the release before this migration left it.
      await sql.unsafe(`CREATE SCHEMA "${schema}"`);
      await sql.begin(async (tx) => {
        await tx.unsafe(`SET LOCAL search_path TO "${schema}"`);
        await tx.unsafe(`CREATE TABLE ${MIGRATIONS_TABLE} (tag TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`);
        for (const m of postgresMigrations.filter((m) => m.tag < "0004")) {
          for (const s of m.statements) await tx.unsafe(s);
          await tx.unsafe(`INSERT INTO ${MIGRATIONS_TABLE} (tag, applied_at) VALUES ($1, $2)`, [m.tag, Date.now()]);
        }
        await tx.unsafe(`${OLD_ROW} ('ws', 'ttft', '["beta"]', false, 7)`);
      });
      const db = await openDatabase(t.url);
      try {
        expect(await db.pendingMigrations()).toEqual(postgresMigrations.filter((m) => m.tag >= "0004").map((m) => m.tag));
        await db.migrate();
        const row = await routingDefaultsRepo(db).get("ws");
        expect(row).toEqual({ defaults: { optimize: "ttft", exclude_providers: ["beta"], allow_fallbacks: false }, updatedAt: 7 });
        const after = await db.tx((o) => routingDefaultsRepo(db).patch(o, "ws", { min_throughput_tps: 12.5, prefer: ["alpha"] }, 8));
        expect(after.defaults).toMatchObject({ optimize: "ttft", min_throughput_tps: 12.5, prefer: ["alpha"] });
      } finally {
        await db.close();
      }
    } finally {
      await sql.end({ timeout: 1 });
      await t.cleanup();
    }
  });
});
