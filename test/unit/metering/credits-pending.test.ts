// The pending-debit rule of CreditService against a scripted ledger, so the order of "poll reads the
// ledger" and "batch commits" is exact (a real database cannot be paused between the two).
import { expect, test } from "bun:test";
import { CreditService } from "../../../src/metering/credits";
import type { Database } from "../../../src/platform/db/database";
import * as tables from "../../../src/platform/db/schema-sqlite";

/** A Database whose ledger reads answer with whatever the test resolves them with, in order. */
function scriptedLedger() {
  const waiting: ((sums: Map<string, number>) => void)[] = [];
  const next = () => new Promise<Map<string, number>>((resolve) => waiting.push(resolve)).then((sums) => ({ sums, reset: false }));
  const db = { t: tables, ledgerReader: () => ({ next }) } as unknown as Database;
  return {
    db,
    /** Answers the oldest open read: the rows for ws1 committed since the previous read sum to `delta`. */
    answer(delta: number) {
      const resolve = waiting.shift();
      if (!resolve) throw new Error("no read is waiting");
      resolve(delta === 0 ? new Map() : new Map([["ws1", delta]]));
    },
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
  const credits = new CreditService(ledger.db, { now: () => now.t });
  const loading = credits.load();
  ledger.answer(1000); // the whole ledger on the first read
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
  ledger.answer(0); // the poll did not see the debit row
  await poll;
  expect(credits.balance("ws1")).toBe(700); // still counted, through the pending set

  const next = credits.refresh();
  ledger.answer(-300); // this poll started after the commit: it sees the row
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
  ledger.answer(-300);
  await poll;
  expect(credits.balance("ws1")).toBe(700);
  // Not charged: BYOK records never debit.
  credits.debitRecord({ ...(record as object), recordId: "r2", requestId: "r2", chargeCredits: false } as never);
  expect(credits.balance("ws1")).toBe(700);
});
