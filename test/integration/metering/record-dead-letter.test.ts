// Issue 52 item 1 (isolate): a record the database refuses must never stop the others. The writer splits
// a refused batch, writes every record the database accepts (with their rollups and debits), and sets the
// refused one aside in dead_letter_records; an outage (unreachable, locked) is still retried whole.
import { Database as BunSqlite } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { RecordWriter } from "../../../src/metering/record-writer";
import type { RequestRecord } from "../../../src/metering/request-record";
import { openDatabase, type Database } from "../../../src/platform/db/database";
import { startServer } from "../../support/server";
import { DIALECTS, makeRecord, openTestDb, waitFor, type TestDb } from "./test-db";

const NUL = "\u0000";

async function ledgerSum(db: Database): Promise<number> {
  const rows = await db.orm
    .select({ n: sql<number | string>`coalesce(sum(${db.t.creditLedger.amountMicrodollars}), 0)` })
    .from(db.t.creditLedger);
  return Number(rows[0]!.n);
}

async function storedIds(db: Database): Promise<string[]> {
  return (await db.orm.select({ id: db.t.requestRecords.id }).from(db.t.requestRecords)).map((r) => r.id).sort();
}

const deadLetters = (db: Database) => db.orm.select().from(db.t.deadLetterRecords);

async function rollupTotals(db: Database): Promise<{ requests: number; cost: number }> {
  const rows = await db.orm.select().from(db.t.usageRollups);
  return { requests: rows.reduce((a, r) => a + r.requests, 0), cost: rows.reduce((a, r) => a + r.costMicrodollars, 0) };
}

const ids = (records: readonly RequestRecord[]) => records.map((r) => r.recordId).sort();
const cost = (records: readonly RequestRecord[]) => records.reduce((a, r) => a + r.costMicrodollars, 0);

for (const dialect of DIALECTS) {
  describe(`record dead-lettering on ${dialect}`, () => {
    let t: TestDb;
    let writer: RecordWriter | null = null;
    beforeEach(async () => {
      t = await openTestDb(dialect);
    });
    afterEach(async () => {
      await writer?.drain(2000);
      writer = null;
      await t.cleanup();
    });

    test("a record the database refuses is set aside, counted and reported; every other record, rollup and debit of its batch is written and the writer keeps going", async () => {
      const good = Array.from({ length: 20 }, (_, i) => makeRecord({ costMicrodollars: 100 + i }));
      // NaN tokens: Postgres refuses "NaN" for an integer, SQLite binds it as NULL into a NOT NULL column.
      const poisoned = makeRecord({ inputTokens: NaN, costMicrodollars: 999 });
      const reported: [string, string][] = [];
      writer = new RecordWriter(t.db, { batchSize: 21, flushIntervalMs: 5, onDeadLetter: (r, e) => reported.push([r.recordId, e]) });
      for (const r of [...good.slice(0, 13), poisoned, ...good.slice(13)]) writer.enqueue(r);
      expect(await waitFor(() => writer!.status().queued === 0)).toBe(true);
      expect(writer.status()).toMatchObject({ healthy: true, lastError: null, deadLettered: 1 });

      expect(await storedIds(t.db)).toEqual(ids(good));
      expect(await rollupTotals(t.db)).toEqual({ requests: 20, cost: cost(good) });
      // The refused call is still charged: its debit is written with its dead-letter row.
      expect(await ledgerSum(t.db)).toBe(-(cost(good) + 999));
      const [row, ...more] = await deadLetters(t.db);
      expect(more).toEqual([]);
      expect(row).toMatchObject({ id: poisoned.recordId, requestId: poisoned.requestId, workspaceId: "ws1" });
      expect(row!.error).toMatch(dialect === "postgres" ? /invalid input syntax for type integer/ : /NOT NULL constraint failed/);
      expect(row!.error).not.toMatch(/insert into/i); // the driver's message, not the statement with every record's data
      expect(JSON.parse(row!.record)).toMatchObject({ recordId: poisoned.recordId, inputTokens: "NaN", costMicrodollars: 999 });
      expect(reported).toEqual([[poisoned.recordId, row!.error]]);

      // Not retried: later records are written at once, the dead-lettered one never again.
      const later = makeRecord();
      writer.enqueue(later);
      expect(await waitFor(async () => (await storedIds(t.db)).length === 21)).toBe(true);
      expect(writer.status()).toMatchObject({ queued: 0, healthy: true, deadLettered: 1 });
      expect(await deadLetters(t.db)).toHaveLength(1);
    });

    test("NUL bytes in trace_id or user_id: Postgres refuses each such record alone and it is kept escaped; SQLite stores it intact; in a tag or a custom field (JSON text) both store it; none is lost", async () => {
      const good = Array.from({ length: 30 }, () => makeRecord());
      const nul = [
        makeRecord({ traceId: `trace${NUL}1` }),
        makeRecord({ tags: [`tag${NUL}`] }),
        makeRecord({ userId: `${NUL}user` }),
        makeRecord({ customFields: { k: `v${NUL}v` } }),
      ];
      const all = [...good.slice(0, 3), nul[0]!, ...good.slice(3, 17), nul[1]!, nul[2]!, ...good.slice(17), nul[3]!];
      writer = new RecordWriter(t.db, { batchSize: all.length, flushIntervalMs: 5 });
      for (const r of all) writer.enqueue(r);
      expect(await waitFor(() => writer!.status().queued === 0)).toBe(true);
      expect(writer.status().healthy).toBe(true);
      const stored = await t.db.orm.select().from(t.db.t.requestRecords);
      // JSON.stringify escapes NUL: the tags and custom fields columns never hold the byte itself.
      expect(JSON.parse(stored.find((r) => r.id === nul[1]!.recordId)!.tags!)).toEqual([`tag${NUL}`]);
      expect(JSON.parse(stored.find((r) => r.id === nul[3]!.recordId)!.customFields!)).toEqual({ k: `v${NUL}v` });
      if (dialect === "postgres") {
        const refused = [nul[0]!, nul[2]!];
        expect(await storedIds(t.db)).toEqual(ids([...good, nul[1]!, nul[3]!]));
        expect(writer.status().deadLettered).toBe(2);
        const rows = await deadLetters(t.db);
        expect(rows.map((r) => r.id).sort()).toEqual(ids(refused));
        for (const row of rows) {
          expect(row.error).toMatch(/invalid byte sequence for encoding "UTF8": 0x00/);
          expect(row.record).toContain("\\u0000");
          const kept = JSON.parse(row.record) as RequestRecord;
          expect(kept).toEqual(JSON.parse(JSON.stringify(nul.find((r) => r.recordId === row.id))));
        }
        expect(await rollupTotals(t.db)).toMatchObject({ requests: 32 });
      } else {
        expect(await storedIds(t.db)).toEqual(ids(all));
        expect(writer.status().deadLettered).toBe(0);
        expect(await deadLetters(t.db)).toEqual([]);
        expect(stored.find((r) => r.id === nul[0]!.recordId)!.traceId).toBe(`trace${NUL}1`);
        expect(await rollupTotals(t.db)).toMatchObject({ requests: 34 });
      }
      // Every charged call is debited exactly once, dead-lettered or not.
      expect(await ledgerSum(t.db)).toBe(-cost(all));
    });

    test("an outage met while a refused batch is being split stops the split: the rest is retried whole, nothing is written twice and nothing lost", async () => {
      // Transactions 3 and 4 meet a dropped connection: the first half has committed by then.
      let txs = 0;
      const db: Database = {
        ...t.db,
        tx: (fn) => (++txs === 3 || txs === 4 ? Promise.reject(new Error("write CONNECTION_CLOSED")) : t.db.tx(fn)),
      };
      const good = Array.from({ length: 7 }, (_, i) => makeRecord({ costMicrodollars: 10 + i }));
      const poisoned = makeRecord({ outputTokens: NaN });
      const errors: string[] = [];
      writer = new RecordWriter(db, { batchSize: 8, flushIntervalMs: 5, initialBackoffMs: 5, onError: (e) => errors.push(String(e)) });
      for (const r of [...good.slice(0, 5), poisoned, ...good.slice(5)]) writer.enqueue(r);
      expect(await waitFor(() => writer!.status().queued === 0)).toBe(true);
      expect(errors).toHaveLength(2);
      expect(await storedIds(t.db)).toEqual(ids(good));
      expect(await rollupTotals(t.db)).toEqual({ requests: 7, cost: cost(good) });
      expect(await ledgerSum(t.db)).toBe(-cost([...good, poisoned]));
      expect((await deadLetters(t.db)).map((r) => r.id)).toEqual([poisoned.recordId]);
      expect(writer.status()).toMatchObject({ healthy: true, deadLettered: 1 });
    });

    test("a database that cannot be reached is not a refusal: the batch waits whole and nothing is dead-lettered", async () => {
      const unreachable = await openDatabase(
        dialect === "postgres" ? "postgres://postgres@127.0.0.1:1/test" : `sqlite:${t.url.slice("sqlite:".length)}`,
      );
      // SQLite: another connection holds the write lock ("database is locked" after the busy timeout).
      const locker = dialect === "sqlite" ? new BunSqlite(t.url.slice("sqlite:".length)) : null;
      locker?.run("BEGIN IMMEDIATE");
      const w = new RecordWriter(unreachable, { batchSize: 3, flushIntervalMs: 5, initialBackoffMs: 5, maxBackoffMs: 20 });
      try {
        for (let i = 0; i < 3; i++) w.enqueue(makeRecord());
        expect(await waitFor(() => w.status().lastError !== null, 10_000)).toBe(true);
        expect(w.status()).toMatchObject({ healthy: false, queued: 3, deadLettered: 0 });
        expect(w.status().lastError).toMatch(dialect === "postgres" ? /ECONNREFUSED|connect/i : /locked|busy/i);
        if (locker) {
          locker.run("ROLLBACK");
          expect(await w.drain(5000)).toEqual({ complete: true, remaining: 0 });
          expect(await storedIds(t.db)).toHaveLength(3);
        }
        expect(await deadLetters(t.db)).toEqual([]);
      } finally {
        if (dialect === "postgres") await w.drain(1);
        locker?.close();
        await unreachable.close().catch(() => {});
      }
    });
  });
}

for (const dialect of DIALECTS) {
  test(`on ${dialect}, a dead-lettered record is logged with its ids and named degraded in /readyz, which stays 200`, async () => {
    const s = await startServer({ db: dialect });
    try {
      const poisoned = makeRecord({ workspaceId: s.workspaceId, latencyMs: NaN, chargeCredits: false });
      s.deps.records.enqueue(makeRecord({ workspaceId: s.workspaceId, chargeCredits: false }));
      s.deps.records.enqueue(poisoned);
      await s.deps.records.drain(5000);
      const r = await s.fetch("/readyz", { key: null });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({
        status: "degraded",
        degraded: ["dead_letter"],
        reasons: ["request records refused by the database; see dead_letter_records"],
        records: { deadLettered: 1 },
      });
      const logged = s.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => String(l.msg).includes("dead_letter_records"));
      expect(logged).toEqual([
        expect.objectContaining({
          level: "error",
          record_id: poisoned.recordId,
          request_id: poisoned.requestId,
          workspace_id: s.workspaceId,
        }),
      ]);
    } finally {
      await s.stop();
    }
  });
}
