// The pending-debit rule of CreditService against a scripted ledger, so the order of "poll reads the
// ledger" and "batch commits" is exact (a real database cannot be paused between the two).
import { expect, test } from "bun:test";
import { CreditService } from "../../../src/metering/credits";
import type { Database } from "../../../src/platform/db/database";
import * as tables from "../../../src/platform/db/schema-sqlite";

/** A Database whose ledger-sum queries answer with whatever the test resolves them with, in order. */
function scriptedLedger() {
  const waiting: ((rows: { ws: string; total: number }[]) => void)[] = [];
  const query = () => new Promise<{ ws: string; total: number }[]>((resolve) => waiting.push(resolve));
  // The service prepares its ledger-sum query once and executes it on every poll.
  const builder = { from: () => builder, where: () => builder, groupBy: () => ({ prepare: () => ({ execute: query }) }) };
  const db = { t: tables, orm: { select: () => builder } } as unknown as Database;
  return {
    db,
    /** Answers the oldest open query with this ledger sum for ws1. */
    answer(sum: number) {
      const next = waiting.shift();
      if (!next) throw new Error("no query is waiting");
      next(sum === 0 ? [] : [{ ws: "ws1", total: sum }]);
    },
    open: () => waiting.length,
  };
}

const record = {
  workspaceId: "ws1",
  recordId: "r1",
  requestId: "r1",
  attempt: 1,
  isFinalAttempt: true,
  chargeCredits: true,
  costMicrodollars: 300,
} as never;

async function ready(ledger: ReturnType<typeof scriptedLedger>, now: { t: number }) {
  const credits = new CreditService(ledger.db, { settleMs: 60_000, now: () => now.t });
  const loading = credits.load();
  ledger.answer(0); // base (rows before the checkpoint)
  for (let i = 0; i < 100 && ledger.open() === 0; i++) await Promise.resolve();
  ledger.answer(1000); // recent rows
  await loading;
  return credits;
}

test("a batch that commits after a poll has read the ledger stays pending until the next poll", async () => {
  const ledger = scriptedLedger();
  const now = { t: 1_000_000 };
  const credits = await ready(ledger, now);
  credits.debitRecord(record);
  expect(credits.balance("ws1")).toBe(700);

  const poll = credits.refresh(); // reads the ledger before the commit…
  credits.markFlushed([record]); // …and the batch commits while that poll is still running
  ledger.answer(1000); // the poll did not see the debit row
  await poll;
  expect(credits.balance("ws1")).toBe(700); // still counted, through the pending set

  const next = credits.refresh();
  ledger.answer(700); // this poll started after the commit: it sees the row
  await next;
  expect(credits.balance("ws1")).toBe(700); // counted once, through the ledger
});

test("a batch that committed before a poll started leaves the pending set with that poll", async () => {
  const ledger = scriptedLedger();
  const now = { t: 1_000_000 };
  const credits = await ready(ledger, now);
  credits.debitRecord(record);
  credits.markFlushed([record]);
  const poll = credits.refresh();
  ledger.answer(700);
  await poll;
  expect(credits.balance("ws1")).toBe(700);
  // Not charged: BYOK records never debit.
  credits.debitRecord({ ...(record as object), recordId: "r2", requestId: "r2", chargeCredits: false } as never);
  expect(credits.balance("ws1")).toBe(700);
});
