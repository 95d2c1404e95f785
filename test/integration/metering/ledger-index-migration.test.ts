// Migration 0002 on SQLite drops the credit ledger's index on created_at alone, which nothing reads (the
// poller goes by rowid): an existing database upgrades in place with its ledger rows and balance intact.
import { Database as BunSqlite } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { openDatabase } from "../../../src/platform/db/database";
import { writeBatch } from "../../../src/metering/record-batch";
import { makeRecord, sqliteAtMigration } from "./test-db";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const ledgerIndexes = (path: string): string[] => {
  const db = new BunSqlite(path, { readonly: true });
  try {
    return (db.query("PRAGMA index_list(credit_ledger)").all() as { name: string }[]).map((i) => i.name).sort();
  } finally {
    db.close();
  }
};

test("a database from before migration 0002 keeps its ledger rows and loses only the unread created_at index", async () => {
  // A database as the release before this migration left it: migrations 0000 and 0001, one top-up.
  const { path, raw: old, cleanup } = sqliteAtMigration(2);
  cleanups.push(cleanup);
  old.run(
    "INSERT INTO credit_ledger (id, workspace_id, amount_microdollars, reason, created_at) VALUES ('top-up', 'ws', 5000000, 'cli', 1)",
  );
  old.close();
  expect(ledgerIndexes(path)).toContain("ledger_created_idx");

  const db = await openDatabase(`sqlite:${path}`);
  try {
    // 0002 first; later migrations follow it.
    expect((await db.pendingMigrations())[0]).toBe("0002_ledger_created_idx_dropped");
    await db.migrate();
    expect(await db.pendingMigrations()).toEqual([]);
    // A charged call after the upgrade debits the same ledger; the poller's sum sees both rows.
    await writeBatch(db, [makeRecord({ workspaceId: "ws", costMicrodollars: 1_250, chargeCredits: true })], Date.now());
    const { sums } = await db.ledgerReader().next();
    expect(sums.get("ws")).toBe(5_000_000 - 1_250);
  } finally {
    await db.close();
  }
  expect(ledgerIndexes(path).filter((n) => !n.startsWith("sqlite_autoindex"))).toEqual(["ledger_ws_idx"]);
});
