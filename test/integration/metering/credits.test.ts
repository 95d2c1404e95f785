import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { CreditService } from "../../../src/metering/credits";
import { RecordWriter } from "../../../src/metering/record-writer";
import { writeBatch } from "../../../src/metering/record-batch";
import postgres from "postgres";
import { DIALECTS, PG_URL, makeRecord, openTestDb, waitFor, type TestDb } from "./test-db";

for (const dialect of DIALECTS) {
  describe(`CreditService on ${dialect}`, () => {
    let t: TestDb;
    let credits: CreditService | null = null;
    beforeEach(async () => {
      t = await openTestDb(dialect);
    });
    afterEach(async () => {
      credits?.stop();
      credits = null;
      await t.cleanup();
    });

    test("loads balances from the ledger sum, old and recent rows alike", async () => {
      const now = Date.now();
      await t.db.orm.insert(t.db.t.creditLedger).values([
        { id: "l1", workspaceId: "ws1", amountMicrodollars: 5_000_000, reason: "grant", requestId: null, createdAt: now - 86_400_000 },
        { id: "l2", workspaceId: "ws1", amountMicrodollars: -1_250, reason: "usage", requestId: "r", createdAt: now - 1000 },
        { id: "l3", workspaceId: "ws2", amountMicrodollars: 7, reason: "grant", requestId: null, createdAt: now },
      ]);
      credits = new CreditService(t.db);
      await credits.load();
      expect(credits.balance("ws1")).toBe(4_998_750);
      expect(credits.balance("ws2")).toBe(7);
      expect(credits.balance("nobody")).toBe(0);
      expect(credits.canSpend("ws1")).toBe(true);
      expect(credits.canSpend("nobody")).toBe(false);
    });

    test("credits added by another connection (the CLI) are picked up within 2 s", async () => {
      credits = new CreditService(t.db, { pollIntervalMs: 200 });
      await credits.load();
      credits.start();
      const cli = new CreditService(await t.openAnother());
      await cli.load();
      expect(await cli.add("ws1", 3_000_000, "cli")).toBe(3_000_000);
      const started = Date.now();
      expect(await waitFor(() => credits!.balance("ws1") === 3_000_000, 2000)).toBe(true);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(credits.canSpend("ws1")).toBe(true);
      // A negative amount removes credit.
      await cli.add("ws1", -3_000_000, "cli");
      expect(await waitFor(() => credits!.balance("ws1") === 0, 2000)).toBe(true);
      expect(credits.canSpend("ws1")).toBe(false);
    });

    test("debits apply at once and are never counted twice once their ledger rows are written", async () => {
      credits = new CreditService(t.db);
      await credits.add("ws1", 1_000, "grant");
      const c = credits;
      const writer = new RecordWriter(t.db, { batchSize: 2, flushIntervalMs: 5, onFlushed: (b) => c.markFlushed(b) });
      const records = [
        makeRecord({ requestId: "r1", costMicrodollars: 100 }),
        makeRecord({ requestId: "r2", costMicrodollars: 250 }),
        makeRecord({ requestId: "r3", costMicrodollars: 999, apiKeySource: "byok", chargeCredits: false }),
      ];
      for (const r of records) {
        credits.debitRecord(r);
        writer.enqueue(r);
      }
      expect(credits.balance("ws1")).toBe(650);
      // Polls before, during and after the flush: the balance never goes up, and settles at 650.
      const seen: number[] = [];
      await waitFor(async () => {
        await c.refresh();
        seen.push(c.balance("ws1"));
        return writer.status().queued === 0 && c.balance("ws1") === 650 && seen.length > 2;
      });
      await writer.drain(1000);
      await c.refresh();
      await c.refresh();
      expect(c.balance("ws1")).toBe(650);
      expect(seen.every((b) => b <= 650)).toBe(true);
      // The DB now holds the debits: a fresh service (a restart) agrees.
      const restarted = new CreditService(t.db);
      await restarted.load();
      expect(restarted.balance("ws1")).toBe(650);
    });

    test("a batch committed while a poll is running is not lost from the balance", async () => {
      credits = new CreditService(t.db);
      await credits.add("ws1", 1_000, "grant");
      const r = makeRecord({ requestId: "late", costMicrodollars: 300 });
      credits.debitRecord(r);
      const poll = credits.refresh(); // its query may run before the batch below commits
      await writeBatch(t.db, [r], Date.now());
      credits.markFlushed([r]);
      await poll;
      // That poll cannot tell whether it saw the row: the debit stays pending (counted at least once).
      expect(credits.balance("ws1")).toBeLessThanOrEqual(700);
      await credits.refresh();
      expect(credits.balance("ws1")).toBe(700);
    });

    test("a poll that meets an open transaction neither counts its rows nor skips rows written after its rollback", async () => {
      credits = new CreditService(t.db);
      await credits.add("ws1", 100, "grant");
      const row = (id: string, amount: number) => ({
        id,
        workspaceId: "ws1",
        amountMicrodollars: amount,
        reason: "grant",
        requestId: null,
        createdAt: Date.now(),
      });
      let poll: Promise<void> | null = null;
      await t.db
        .tx(async (orm) => {
          await orm.insert(t.db.t.creditLedger).values(row("rolled-back", 5_000));
          poll = credits!.refresh(); // runs while the row above is written but not committed
          await Promise.resolve();
          throw new Error("rollback");
        })
        .catch(() => undefined);
      await poll;
      expect(credits.balance("ws1")).toBe(100);
      // On SQLite the next row may take the rolled-back row's rowid: the cursor must not be past it.
      await t.db.orm.insert(t.db.t.creditLedger).values(row("after", 7));
      await credits.refresh();
      expect(credits.balance("ws1")).toBe(107);
    });

    if (dialect === "sqlite")
      test("ledger rowids that go below the cursor (rows removed by hand, table rebuilt) make the poll sum everything again", async () => {
        credits = new CreditService(t.db);
        for (const amount of [1, 2, 3]) await credits.add("ws1", amount, "grant");
        expect(credits.balance("ws1")).toBe(6);
        await t.db.orm.delete(t.db.t.creditLedger); // an operator clears the ledger: rowids start again at 1
        await credits.add("ws1", 7, "grant");
        expect(credits.balance("ws1")).toBe(7);
      });

    if (dialect === "postgres")
      test("a ledger row whose transaction commits after later rows is counted once, when it commits", async () => {
        credits = new CreditService(t.db);
        await credits.add("ws1", 1, "grant");
        // Another writer (an instance's record batch) holds an open transaction with a ledger row…
        const schema = new URL(t.url).searchParams.get("schema")!;
        const other = postgres(PG_URL, { max: 1, onnotice: () => {}, connection: { search_path: schema } });
        const committed = Promise.withResolvers<void>();
        const inserted = Promise.withResolvers<void>();
        const slow = other.begin(async (tx) => {
          await tx`INSERT INTO credit_ledger (id, workspace_id, amount_microdollars, reason, request_id, created_at)
                   VALUES ('slow', 'ws1', 100, 'usage', NULL, ${Date.now()})`;
          inserted.resolve();
          await committed.promise;
        });
        try {
          await inserted.promise;
          // …while rows inserted after it commit first, and polls run in between.
          await credits.add("ws1", 10, "grant");
          await credits.refresh();
          expect(credits.balance("ws1")).toBe(11);
          committed.resolve();
          await slow;
          await credits.refresh();
          expect(credits.balance("ws1")).toBe(111);
          await credits.add("ws1", 1000, "grant");
          await credits.refresh();
          await credits.refresh();
          expect(credits.balance("ws1")).toBe(1111);
          // A fresh reader (a restart) agrees.
          const restarted = new CreditService(t.db);
          await restarted.load();
          expect(restarted.balance("ws1")).toBe(1111);
        } finally {
          committed.resolve();
          await slow.catch(() => {});
          await other.end();
        }
      });
  });
}
