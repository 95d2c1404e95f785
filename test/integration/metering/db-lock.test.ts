// The database really unavailable, not simulated: another connection holds the lock the writer needs.
import { afterEach, expect, test } from "bun:test";
import { Database as BunSqlite } from "bun:sqlite";
import postgres from "postgres";
import { sql } from "drizzle-orm";
import { RecordWriter } from "../../../src/metering/record-writer";
import { makeRecord, openTestDb, PG_URL, waitFor, type TestDb } from "./test-db";

let t: TestDb;
let writer: RecordWriter | null = null;
afterEach(async () => {
  await writer?.drain(5000);
  writer = null;
  await t.cleanup();
});

async function recordCount(): Promise<number> {
  const rows = await t.db.orm.select({ n: sql<number | string>`count(*)` }).from(t.db.t.requestRecords);
  return Number(rows[0]!.n);
}

test("sqlite file locked by another process (BEGIN EXCLUSIVE): records wait and are written after the lock goes", async () => {
  t = await openTestDb("sqlite");
  const other = new BunSqlite(t.url.slice("sqlite:".length));
  other.run("BEGIN EXCLUSIVE");
  writer = new RecordWriter(t.db, { batchSize: 10, flushIntervalMs: 5, initialBackoffMs: 10 });
  for (let i = 0; i < 30; i++) writer.enqueue(makeRecord());
  // The facade's busy_timeout is 250 ms: the first batch fails after it.
  expect(await waitFor(() => !writer!.status().healthy, 15_000)).toBe(true);
  expect(writer.status().queued).toBe(30);
  expect(writer.status().lastError).toContain("locked");
  other.run("COMMIT");
  other.close();
  expect(await waitFor(async () => (await recordCount()) === 30, 5000)).toBe(true);
  expect(await waitFor(() => writer!.status().healthy && writer!.status().queued === 0)).toBe(true);
}, 30_000);

test("postgres tables locked by another session: batches wait, then commit with nothing lost", async () => {
  t = await openTestDb("postgres");
  const schema = new URL(t.url).searchParams.get("schema")!;
  const other = postgres(PG_URL, { max: 1, onnotice: () => {}, connection: { search_path: schema } });
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const session = other.begin(async (tx) => {
    await tx.unsafe("LOCK TABLE request_records IN ACCESS EXCLUSIVE MODE");
    locked();
    await released;
  });
  await isLocked;
  writer = new RecordWriter(t.db, { batchSize: 10, flushIntervalMs: 5 });
  for (let i = 0; i < 25; i++) writer.enqueue(makeRecord());
  // The first batch's transaction is really blocked on the lock (a lock request not granted)…
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  const table = `"${schema}".request_records`;
  const waiting = async () =>
    Number((await admin`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = ${table}::regclass`)[0]!.n) > 0;
  expect(await waitFor(waiting, 5000)).toBe(true);
  await admin.end();
  // …so nothing is written and everything is still queued.
  expect(writer.status()).toMatchObject({ queued: 25, lastFlushAt: null });
  release();
  await session;
  await other.end();
  expect(await waitFor(async () => (await recordCount()) === 25, 5000)).toBe(true);
  expect(await writer.drain(5000)).toEqual({ complete: true, remaining: 0 });
  expect(await recordCount()).toBe(25);
}, 30_000);
