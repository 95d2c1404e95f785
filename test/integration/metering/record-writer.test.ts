import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { FLUSH_INTERVAL_MS, RecordWriter } from "../../../src/metering/record-writer";
import { writeBatch } from "../../../src/metering/record-batch";
import type { RequestRecord } from "../../../src/metering/request-record";
import type { Database } from "../../../src/platform/db/database";
import { DIALECTS, makeRecord, openTestDb, waitFor, type TestDb } from "./test-db";

async function count(db: Database, table: "request_records" | "usage_rollups" | "credit_ledger"): Promise<number> {
  const t = { request_records: db.t.requestRecords, usage_rollups: db.t.usageRollups, credit_ledger: db.t.creditLedger }[table];
  const rows = await db.orm.select({ n: sql<number | string>`count(*)` }).from(t);
  return Number(rows[0]!.n);
}

/** A facade whose transactions fail while `down` is true: the database is unreachable. */
function flaky(db: Database): { db: Database; setDown(v: boolean): void; attempts(): number } {
  let down = false;
  let attempts = 0;
  const wrapped: Database = {
    ...db,
    tx: (fn) => {
      attempts += 1;
      return down ? Promise.reject(new Error("connection refused")) : db.tx(fn);
    },
  };
  return { db: wrapped, setDown: (v) => (down = v), attempts: () => attempts };
}

for (const dialect of DIALECTS) {
  describe(`RecordWriter on ${dialect}`, () => {
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

    test("flushes a full batch at once, without waiting for the timer", async () => {
      const flushed: number[] = [];
      writer = new RecordWriter(t.db, { batchSize: 10, flushIntervalMs: 60_000, onFlushed: (b) => flushed.push(b.length) });
      for (let i = 0; i < 25; i++) writer.enqueue(makeRecord());
      expect(await waitFor(async () => (await count(t.db, "request_records")) === 20)).toBe(true);
      expect(flushed).toEqual([10, 10]);
      // The 5 left are a partial batch: they wait for the (one-minute) timer.
      expect(writer.status().queued).toBe(5);
    });

    test("a committed record is not kept by the writer: it can be collected once the caller drops it", async () => {
      writer = new RecordWriter(t.db, { batchSize: 10, flushIntervalMs: 60_000 });
      const refs: WeakRef<RequestRecord>[] = [];
      // Enqueued from a function that returns, so that no reference is left in this frame.
      const enqueue = (w: RecordWriter) => {
        for (let i = 0; i < 50; i++) {
          const r = makeRecord();
          refs.push(new WeakRef(r));
          w.enqueue(r);
        }
      };
      enqueue(writer);
      expect(await waitFor(async () => (await count(t.db, "request_records")) === 50)).toBe(true);
      expect(writer.status().queued).toBe(0);
      await Bun.sleep(0);
      Bun.gc(true);
      // The collector scans stacks conservatively: a stray word may keep a record or two alive, never most.
      expect(refs.filter((r) => r.deref() === undefined).length).toBeGreaterThanOrEqual(40);
    });

    test("flushes a partial batch when the interval passes", async () => {
      writer = new RecordWriter(t.db, { batchSize: 500, flushIntervalMs: 30 });
      for (let i = 0; i < 3; i++) writer.enqueue(makeRecord());
      expect(writer.status().queued).toBe(3);
      expect(await waitFor(async () => (await count(t.db, "request_records")) === 3)).toBe(true);
      expect(writer.status()).toMatchObject({ queued: 0, healthy: true, lastError: null });
      expect(writer.status().lastFlushAt).not.toBeNull();
    });

    test("by default a partial batch waits FLUSH_INTERVAL_MS (250 ms) for company, then is flushed", async () => {
      writer = new RecordWriter(t.db);
      const enqueuedAt = Date.now();
      for (let i = 0; i < 3; i++) writer.enqueue(makeRecord());
      expect(FLUSH_INTERVAL_MS).toBe(250);
      expect(await waitFor(async () => (await count(t.db, "request_records")) === 3)).toBe(true);
      // Timers never fire early by more than a millisecond or so: the batch was not written before its time.
      expect(writer.status().lastFlushAt! - enqueuedAt).toBeGreaterThanOrEqual(FLUSH_INTERVAL_MS - 5);
      expect(writer.status().queued).toBe(0);
    });

    test("a batch that failed midway (records inserted, then an error) is retried with nothing duplicated", async () => {
      // The rollup upsert fails once, after the records went in: the transaction rolls back and the
      // writer retries the whole batch.
      let failures = 1;
      const db: Database = {
        ...t.db,
        upsertAdding: (...args) => (failures-- > 0 ? Promise.reject(new Error("disk I/O error")) : t.db.upsertAdding(...args)),
      };
      writer = new RecordWriter(db, { batchSize: 2, initialBackoffMs: 5 });
      writer.enqueue(makeRecord({ costMicrodollars: 300 }));
      writer.enqueue(makeRecord({ costMicrodollars: 200 }));
      expect(await waitFor(async () => writer!.status().queued === 0 && writer!.status().healthy)).toBe(true);
      expect(await count(t.db, "request_records")).toBe(2);
      const ledger = await t.db.orm.select().from(t.db.t.creditLedger);
      expect(ledger.map((l) => l.amountMicrodollars)).toEqual([-500]);
      const rollups = await t.db.orm.select().from(t.db.t.usageRollups);
      expect(rollups).toHaveLength(1);
      expect(rollups[0]).toMatchObject({ requests: 2, costMicrodollars: 500 });
    });

    // Only Postgres can leave a commit in doubt (the connection breaks during COMMIT): a batch retried
    // after its commit did happen skips the records whose ids are stored. SQLite commits in process, so
    // its records table has no index on the id to pay for (Database.insertRecords).
    test.skipIf(dialect !== "postgres")(
      "a batch retried after its commit did happen does not duplicate records, rollups or ledger debits",
      async () => {
        const batch = [makeRecord({ costMicrodollars: 300 }), makeRecord({ costMicrodollars: 200 })];
        const first = await writeBatch(t.db, batch, Date.now());
        const again = await writeBatch(t.db, batch, Date.now());
        expect(first).toEqual({ inserted: 2, duplicates: 0 });
        expect(again).toEqual({ inserted: 0, duplicates: 2 });
        expect(await count(t.db, "request_records")).toBe(2);
        const ledger = await t.db.orm.select().from(t.db.t.creditLedger);
        expect(ledger.map((l) => [l.requestId, l.amountMicrodollars])).toEqual([[null, -500]]); // one row per workspace per batch
        const rollups = await t.db.orm.select().from(t.db.t.usageRollups);
        expect(rollups).toHaveLength(1);
        expect(rollups[0]).toMatchObject({ requests: 2, costMicrodollars: 500, inputTokens: 200, outputTokens: 100 });
      },
    );

    test("a batch is stored whole and field for field (usage_estimated false unless the record says so)", async () => {
      const records = Array.from({ length: 37 }, (_, i) =>
        makeRecord({
          latencyMs: i,
          statusCode: i % 2 ? 200 : 502,
          success: i % 2 === 1,
          tags: i % 3 ? null : [`t${i}`],
          ttftMs: i % 5 ? i : null,
          ...(i % 4 ? {} : { usageEstimated: i % 8 === 0 }),
        }),
      );
      await writeBatch(t.db, records, Date.now());
      const rows = await t.db.orm.select().from(t.db.t.requestRecords);
      expect(rows.length).toBe(37);
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const r of records) {
        expect(byId.get(r.recordId)).toMatchObject({
          requestId: r.requestId,
          latencyMs: r.latencyMs,
          statusCode: r.statusCode,
          success: r.success,
          ttftMs: r.ttftMs,
          tags: r.tags === null ? null : JSON.stringify(r.tags),
          usageEstimated: r.usageEstimated === true,
        });
      }
    });

    test("a record enqueued twice in one batch counts once", async () => {
      const r = makeRecord();
      await writeBatch(t.db, [r, r], Date.now());
      const rollups = await t.db.orm.select().from(t.db.t.usageRollups);
      expect(rollups[0]!.requests).toBe(1);
    });

    test("rollups equal the sum of the records: requests and errors count final attempts only", async () => {
      const day1 = Date.UTC(2026, 0, 5, 23, 59, 59);
      const day2 = Date.UTC(2026, 0, 6, 0, 0, 1);
      const records: RequestRecord[] = [];
      for (let i = 0; i < 40; i++) {
        const requestId = `call_${i}`;
        const createdAt = i % 2 ? day1 : day2;
        const model = i % 3 ? "acme/a" : "acme/b";
        // Every fourth call failed over once before its final attempt.
        if (i % 4 === 0) {
          records.push(
            makeRecord({
              requestId,
              attempt: 1,
              createdAt,
              modelCanonical: model,
              isFinalAttempt: false,
              success: false,
              statusCode: 503,
              inputTokens: 0,
              outputTokens: 0,
              costMicrodollars: 0,
            }),
          );
        }
        const failed = i % 5 === 0;
        records.push(
          makeRecord({
            requestId,
            attempt: i % 4 === 0 ? 2 : 1,
            createdAt,
            modelCanonical: model,
            success: !failed,
            statusCode: failed ? 502 : 200,
            inputTokens: i,
            outputTokens: 2 * i,
            costMicrodollars: failed ? 0 : 10 * i,
          }),
        );
      }
      writer = new RecordWriter(t.db, { batchSize: 7, flushIntervalMs: 5 });
      for (const r of records) writer.enqueue(r);
      expect(await writer.drain(5000)).toEqual({ complete: true, remaining: 0 });

      const rr = t.db.t.requestRecords;
      const expected = await t.db.orm
        .select({
          requests: sql<number | string>`sum(case when ${rr.isFinalAttempt} then 1 else 0 end)`,
          errors: sql<number | string>`sum(case when ${rr.isFinalAttempt} and not ${rr.success} then 1 else 0 end)`,
          input: sql<number | string>`sum(${rr.inputTokens})`,
          cost: sql<number | string>`sum(${rr.costMicrodollars})`,
        })
        .from(rr);
      const rollups = await t.db.orm.select().from(t.db.t.usageRollups);
      expect(rollups).toHaveLength(4); // 2 days × 2 models
      const sum = (f: (r: (typeof rollups)[number]) => number) => rollups.reduce((a, r) => a + f(r), 0);
      expect(sum((r) => r.requests)).toBe(40);
      expect(sum((r) => r.requests)).toBe(Number(expected[0]!.requests));
      expect(sum((r) => r.errors)).toBe(Number(expected[0]!.errors));
      expect(sum((r) => r.errors)).toBe(8);
      expect(sum((r) => r.inputTokens)).toBe(Number(expected[0]!.input));
      expect(sum((r) => r.costMicrodollars)).toBe(Number(expected[0]!.cost));
      expect(new Set(rollups.map((r) => r.day))).toEqual(new Set(["2026-01-05", "2026-01-06"]));
    });

    test("a batch writes one debit row per workspace: the sum of its charged calls", async () => {
      await writeBatch(
        t.db,
        [
          makeRecord({ workspaceId: "ws1", requestId: "a", costMicrodollars: 70 }),
          makeRecord({ workspaceId: "ws1", requestId: "b", costMicrodollars: 30 }),
          makeRecord({ workspaceId: "ws2", requestId: "c", costMicrodollars: 5 }),
          makeRecord({ workspaceId: "ws2", requestId: "d", costMicrodollars: 9, chargeCredits: false, apiKeySource: "byok" }),
        ],
        Date.now(),
      );
      const ledger = await t.db.orm.select().from(t.db.t.creditLedger);
      const rows = ledger.map((l) => [l.workspaceId, l.requestId, l.amountMicrodollars]).sort();
      expect(rows).toEqual([
        ["ws1", null, -100],
        ["ws2", "c", -5],
      ]);
    });

    test("ledger debits only for charged final attempts with a cost", async () => {
      await writeBatch(
        t.db,
        [
          makeRecord({ requestId: "a", costMicrodollars: 70 }),
          makeRecord({ requestId: "b", costMicrodollars: 70, chargeCredits: false, apiKeySource: "byok" }),
          makeRecord({ requestId: "c", costMicrodollars: 0 }),
          makeRecord({ requestId: "d", attempt: 1, isFinalAttempt: false, costMicrodollars: 5 }),
        ],
        Date.now(),
      );
      const ledger = await t.db.orm.select().from(t.db.t.creditLedger);
      expect(ledger.map((l) => [l.requestId, l.amountMicrodollars])).toEqual([["a", -70]]);
    });

    test("database down: records wait, are retried with backoff and none is lost", async () => {
      const f = flaky(t.db);
      const errors: unknown[] = [];
      writer = new RecordWriter(f.db, {
        batchSize: 5,
        flushIntervalMs: 5,
        initialBackoffMs: 5,
        maxBackoffMs: 20,
        onError: (e) => errors.push(e),
      });
      f.setDown(true);
      for (let i = 0; i < 12; i++) writer.enqueue(makeRecord());
      expect(await waitFor(() => f.attempts() >= 3)).toBe(true);
      expect(writer.status()).toMatchObject({ healthy: false, lastError: "connection refused", queued: 12 });
      expect(await count(t.db, "request_records")).toBe(0);
      for (let i = 0; i < 3; i++) writer.enqueue(makeRecord());
      f.setDown(false);
      expect(await waitFor(async () => (await count(t.db, "request_records")) === 15)).toBe(true);
      expect(await waitFor(() => writer!.status().queued === 0)).toBe(true);
      expect(writer.status().healthy).toBe(true);
      expect(errors.length).toBeGreaterThanOrEqual(3);
    });

    test("drain on shutdown writes everything queued", async () => {
      writer = new RecordWriter(t.db, { batchSize: 100, flushIntervalMs: 60_000 });
      for (let i = 0; i < 250; i++) writer.enqueue(makeRecord());
      expect(await writer.drain(5000)).toEqual({ complete: true, remaining: 0 });
      expect(await count(t.db, "request_records")).toBe(250);
    });

    test("drain gives up at its timeout while the database stays down, keeping the records", async () => {
      const f = flaky(t.db);
      f.setDown(true);
      writer = new RecordWriter(f.db, { initialBackoffMs: 5 });
      writer.enqueue(makeRecord());
      expect(await writer.drain(50)).toEqual({ complete: false, remaining: 1 });
      f.setDown(false);
      expect(await writer.drain(2000)).toEqual({ complete: true, remaining: 0 });
      expect(await count(t.db, "request_records")).toBe(1);
    });

    test("isFull turns on at maxQueued, but enqueue never drops a record", async () => {
      const f = flaky(t.db);
      f.setDown(true);
      writer = new RecordWriter(f.db, { maxQueued: 3, batchSize: 2, flushIntervalMs: 1, initialBackoffMs: 5 });
      for (let i = 0; i < 3; i++) writer.enqueue(makeRecord());
      expect(writer.isFull()).toBe(true);
      writer.enqueue(makeRecord()); // a call already in flight still gets its record kept
      expect(writer.status().queued).toBe(4);
      f.setDown(false);
      expect(await writer.drain(3000)).toEqual({ complete: true, remaining: 0 });
      expect(writer.isFull()).toBe(false);
      expect(await count(t.db, "request_records")).toBe(4);
    });
  });
}
