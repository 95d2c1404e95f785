// The bulk writes on Postgres as one fixed unnest statement per table (platform/db/pg-unnest.ts): the
// statement follows the schema, is prepared once whatever the batch size, and stores exactly what
// Drizzle's multi-row INSERT stored. The round trip runs on SQLite too: both dialects read back the same.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { getTableColumns, sql } from "drizzle-orm";
import { bigint, bigserial, boolean, customType, pgTable, text } from "drizzle-orm/pg-core";
import type postgres from "postgres";
import { writeBatch } from "../../../src/metering/record-batch";
import { debitLedgerId, toRow, type RequestRecord } from "../../../src/metering/request-record";
import { requestRepo } from "../../../src/management/requests/repo";
import type { Orm } from "../../../src/platform/db/database";
import { RECORD_INSERT } from "../../../src/platform/db/pg-inserts";
import { unnestStatement } from "../../../src/platform/db/pg-unnest";
import * as pgSchema from "../../../src/platform/db/schema-pg";
import { DIALECTS, makeRecord, openTestDb, type TestDb } from "../metering/test-db";

const clientOf = (orm: Orm) => (orm as unknown as { session: { client: postgres.TransactionSql } }).session.client;

/** Values the array-literal syntax must carry through: quotes, backslashes, separators, braces, "NULL", "", Unicode. */
const awkward = (over: Partial<RequestRecord> = {}): RequestRecord =>
  makeRecord({
    createdAt: Date.UTC(2026, 2, 2, 23, 59, 59, 987),
    model: 'm "quoted", {braced}',
    modelCanonical: 'back\\slash\\\\ and \\"',
    provider: "NULL",
    providerModelId: "",
    apiKeyId: null,
    apiKeySource: "byok",
    statusCode: 429,
    success: false,
    latencyMs: 12.6,
    ttftMs: null,
    inputTokens: 2_147_483_647,
    outputTokens: 0,
    cachedTokens: 7,
    reasoningTokens: 3,
    costMicrodollars: Number.MAX_SAFE_INTEGER,
    errorCode: "rate_limited",
    traceId: "  spaced  ",
    userId: "ünïcødé 😀 日本",
    tags: ["a,b", 'c"d', "e\\f", "{}"],
    customFields: { "k,1": 'v "x"', nul: "\\u0000 as text" },
    usageEstimated: true,
    routingDecision: {
      ttftMsEstimate: 101.4,
      throughputTpsEstimate: 55.55,
      exploration: true,
      sticky: false,
      warnings: [{ type: "w", code: "c", message: 'm "q"' }],
    },
    ...over,
  });

for (const dialect of DIALECTS) {
  describe(`request records written in one statement, on ${dialect}`, () => {
    let t: TestDb;
    beforeEach(async () => {
      t = await openTestDb(dialect);
    });
    afterEach(async () => {
      await t.cleanup();
    });

    test("a record reads back field by field as written: nulls, JSON text, awkward strings, large integers, timestamps", async () => {
      const a = awkward();
      const b = awkward({
        isFinalAttempt: false,
        attempt: 2,
        success: true,
        ttftMs: 40.4,
        costMicrodollars: 10,
        tags: null,
        customFields: null,
        routingDecision: null,
      });
      a.costMicrodollars -= 10;
      const plain = makeRecord({ usageEstimated: undefined, routingDecision: undefined });
      expect(await writeBatch(t.db, [a, b, plain], 1_000)).toEqual({ inserted: 3, duplicates: 0 });
      const repo = requestRepo(t.db);
      for (const r of [a, b, plain]) {
        const [row] = (await repo.attempts(r.workspaceId, r.requestId)) as Record<string, unknown>[];
        const { seq, ...rest } = row!;
        expect(typeof seq).toBe("number");
        expect(rest).toEqual(toRow(r) as Record<string, unknown>);
      }
      expect((await repo.attempts(a.workspaceId, a.requestId))[0]!.latencyMs).toBe(13);
      // Both records share the rollup key: the counters add up exactly beyond 32 bits.
      const rollups = await t.db.orm.select().from(t.db.t.usageRollups);
      const key = rollups.find((u) => u.model === a.modelCanonical)!;
      expect(key).toMatchObject({
        provider: "NULL",
        apiKeyId: "",
        requests: 1,
        errors: 1,
        inputTokens: 4_294_967_294,
        costMicrodollars: Number.MAX_SAFE_INTEGER,
      });
    });

    test("a batch of 2,000 records is one write: every record, rollup and debit is stored", async () => {
      const batch = Array.from({ length: 2_000 }, (_, i) => makeRecord({ workspaceId: `ws${i % 3}`, costMicrodollars: i + 1 }));
      expect(await writeBatch(t.db, batch, 1_000)).toEqual({ inserted: 2_000, duplicates: 0 });
      const [n] = await t.db.orm.select({ n: sql<number | string>`count(*)` }).from(t.db.t.requestRecords);
      expect(Number(n!.n)).toBe(2_000);
      const rollups = await t.db.orm.select().from(t.db.t.usageRollups);
      expect(rollups.reduce((s, u) => s + u.requests, 0)).toBe(2_000);
      expect(rollups.reduce((s, u) => s + u.costMicrodollars, 0)).toBe((2_000 * 2_001) / 2);
      const ledger = await t.db.orm.select().from(t.db.t.creditLedger);
      expect(ledger).toHaveLength(3);
      expect(ledger.reduce((s, l) => s + l.amountMicrodollars, 0)).toBe(-(2_000 * 2_001) / 2);
    });

    test("an empty batch writes nothing and returns nothing", async () => {
      const out = await t.db.tx(async (tx) => {
        const ids = await t.db.insertRecords(tx, []);
        await t.db.upsertAdding(tx, "usageRollups", [], ["workspaceId", "day", "model", "provider", "apiKeyId"], ["requests"]);
        const ledger = await t.db.insertIgnoring(tx, "creditLedger", [], ["id"], ["id"]);
        return { ids, ledger };
      });
      expect(out).toEqual({ ids: [], ledger: [] });
      expect(await t.db.orm.select().from(t.db.t.requestRecords)).toEqual([]);
    });
  });
}

describe("the Postgres statement", () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await openTestDb("postgres");
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test("writes every column of the schema's request_records the app fills, and the migrated table has no other", async () => {
    const schemaCols = Object.values(getTableColumns(pgSchema.requestRecords))
      .map((c) => c.name)
      .filter((n) => n !== "seq");
    expect([...RECORD_INSERT.columns]).toEqual(schemaCols);
    expect(RECORD_INSERT.text).toStartWith(
      `INSERT INTO "request_records" (${schemaCols.map((c) => `"${c}"`).join(", ")}) SELECT * FROM unnest($1::text[], $2::text[], $3::integer[]`,
    );
    const dbCols = await t.db.tx(async (tx) =>
      clientOf(tx).unsafe(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'request_records'
         AND coalesce(column_default, '') NOT LIKE 'nextval(%' ORDER BY ordinal_position`,
      ),
    );
    expect(dbCols.map((r) => r.column_name as string).sort()).toEqual([...schemaCols].sort());
  });

  test("a column added to a table is written with no other change, its default applied as Drizzle's insert did", async () => {
    const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => "xid8" });
    let made = 0;
    const probe = pgTable("unnest_probe", {
      seq: bigserial("seq", { mode: "number" }).notNull(),
      id: text("id").primaryKey(),
      big: bigint("big", { mode: "number" }),
      flag: boolean("flag").notNull().default(true),
      made: text("made")
        .notNull()
        .$defaultFn(() => `made${++made}`),
      xid: xid8("xid")
        .notNull()
        .default(sql`pg_current_xact_id()`),
      added: text("added_later"),
    });
    const s = unnestStatement(probe, { conflict: ["id"], returning: ["id", "big"] });
    expect([...s.columns]).toEqual(["id", "big", "flag", "made", "added_later"]);
    const rows = await t.db.tx(async (tx) => {
      const c = clientOf(tx);
      await c.unsafe(
        `CREATE TABLE unnest_probe (seq bigserial NOT NULL, id text PRIMARY KEY, big bigint, flag boolean NOT NULL DEFAULT true,
         made text NOT NULL, xid xid8 NOT NULL DEFAULT pg_current_xact_id(), added_later text)`,
      );
      const rs = [{ id: "a", big: 2 ** 53 - 1, added: "later" }, { id: "b", flag: false, made: "given", big: null }, { id: "c" }];
      const back = (await c.unsafe(s.text, s.params(rs))).map((r) => s.returned(r));
      expect(back).toEqual([
        { id: "a", big: 2 ** 53 - 1 },
        { id: "b", big: null },
        { id: "c", big: null },
      ]);
      expect(() => s.params([{ id: "d", seq: 5 }])).toThrow(/filled by the database/);
      return c.unsafe(`SELECT seq, id, big, flag, made, xid IS NOT NULL AS has_xid, added_later FROM unnest_probe ORDER BY id`);
    });
    expect(rows.map((r): Record<string, unknown> => ({ ...r }))).toEqual([
      { seq: "1", id: "a", big: String(2 ** 53 - 1), flag: true, made: "made1", has_xid: true, added_later: "later" },
      { seq: "2", id: "b", big: null, flag: false, made: "given", has_xid: true, added_later: null },
      { seq: "3", id: "c", big: null, flag: true, made: "made2", has_xid: true, added_later: null },
    ]);
  });

  test("one statement text whatever the batch size: the connection prepares it once", async () => {
    const prepared = await t.db.tx(async (tx) => {
      for (const n of [1, 7, 300])
        await t.db.insertRecords(
          tx,
          Array.from({ length: n }, () => toRow(makeRecord())),
        );
      return clientOf(tx).unsafe(`SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO "request_records"%'`);
    });
    expect(prepared.map((p) => p.statement)).toEqual([RECORD_INSERT.text]);
  });

  test("a retried batch skips the records stored already and returns only the new ids; a missing usage_estimated is stored false", async () => {
    const old = [makeRecord(), makeRecord()];
    const fresh = makeRecord();
    const { usageEstimated: _absent, ...noFlag } = toRow(fresh);
    const [first, again] = await t.db.tx(async (tx) => [
      await t.db.insertRecords(tx, old.map(toRow)),
      await t.db.insertRecords(tx, [...old.map(toRow), noFlag]),
    ]);
    expect([...first!].sort()).toEqual(old.map((r) => r.recordId).sort());
    expect(again).toEqual([fresh.recordId]);
    const [row] = await requestRepo(t.db).attempts(fresh.workspaceId, fresh.requestId);
    expect(row!.usageEstimated).toBe(false);
  });

  test("debits: the conflict target skips a debit written before; xid is left to the database", async () => {
    const r = makeRecord({ costMicrodollars: 250 });
    const row = {
      id: debitLedgerId(r.recordId),
      workspaceId: "ws1",
      amountMicrodollars: -250,
      reason: "usage",
      requestId: r.requestId,
      createdAt: 5,
    };
    const out = await t.db.tx(async (tx) => [
      await t.db.insertIgnoring(tx, "creditLedger", [row], ["id"], ["id", "amountMicrodollars"]),
      await t.db.insertIgnoring(tx, "creditLedger", [row, { ...row, id: "other" }], ["id"], ["id", "amountMicrodollars"]),
    ]);
    expect(out).toEqual([[{ id: row.id, amountMicrodollars: -250 }], [{ id: "other", amountMicrodollars: -250 }]]);
    const ledger = await t.db.orm.select().from(t.db.t.creditLedger);
    expect(ledger.map((l: Record<string, unknown>) => ({ ...l, xid: typeof l.xid }))).toEqual([
      { ...row, xid: "string" },
      { ...row, id: "other", xid: "string" },
    ]);
  });
});
