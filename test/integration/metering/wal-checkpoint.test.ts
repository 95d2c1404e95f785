// The SQLite WAL is checkpointed in small steps: the checkpoint runs inside the commit that passes the
// mark, on the event loop, so its size bounds how long one commit can stall every request in flight
// (database-sqlite.ts says what 10,000 pages cost). Measured by the WAL file's size, not by timing.
import { afterEach, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { sql } from "drizzle-orm";
import { writeBatch } from "../../../src/metering/record-batch";
import { makeRecord, openTestDb, type TestDb } from "./test-db";

let t: TestDb | null = null;
afterEach(async () => {
  await t?.cleanup();
  t = null;
});

test("sqlite: sustained record writes keep the WAL near SQLite's 1,000-page checkpoint (~4 MB), never tens of MB", async () => {
  t = await openTestDb("sqlite");
  const wal = `${t.url.slice("sqlite:".length)}-wal`;
  let largest = 0;
  // ~10 MB of WAL frames in all (500-record batches write ~0.2 MB each): with the checkpoint at 10,000
  // pages the file would hold all of them.
  for (let b = 0; b < 50; b++) {
    await writeBatch(
      t.db,
      Array.from({ length: 500 }, () => makeRecord()),
      Date.now(),
    );
    largest = Math.max(largest, statSync(wal).size);
  }
  const rows = await t.db.orm.select({ n: sql<number>`count(*)` }).from(t.db.t.requestRecords);
  expect(Number(rows[0]!.n)).toBe(25_000);
  expect(largest).toBeGreaterThan(2 * 1024 * 1024); // the writes did pass the mark
  expect(largest).toBeLessThan(6 * 1024 * 1024);
});
