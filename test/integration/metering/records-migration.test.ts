// The rowid migration (0001_records_rowid) keeps every stored record, in the order it was written, and
// leaves the records table without an index on the id: an existing SQLite database upgrades in place.
import { Database as BunSqlite } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { openDatabase } from "../../../src/platform/db/database";
import { writeBatch } from "../../../src/metering/record-batch";
import { makeRecord, sqliteAtMigration } from "./test-db";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

test("records written before the rowid migration survive it in their order, and new ones append after them", async () => {
  // A database as the first release left it: only the initial migration, records keyed by their text id.
  const { path, raw: old, cleanup } = sqliteAtMigration(1);
  cleanups.push(cleanup);
  const insert = old.query(
    `INSERT INTO request_records (id, request_id, attempt, workspace_id, created_at, endpoint, status_code, success, is_final_attempt,
       latency_ms, input_tokens, output_tokens, cached_tokens, reasoning_tokens, cost_microdollars) VALUES (?, ?, 1, 'ws', ?, 'chat_completions', 200, 1, 1, 5, 1, 1, 0, 0, 7)`,
  );
  // Ids out of alphabetical order: the order kept must be the order written, not the ids'.
  for (const [id, req] of [
    ["rec_c", "req_1"],
    ["rec_a", "req_2"],
    ["rec_b", "req_3"],
  ] as const)
    insert.run(id, req, Date.now());
  old.close();

  const db = await openDatabase(`sqlite:${path}`);
  try {
    expect(await db.pendingMigrations()).toContain("0001_records_rowid");
    await db.migrate();
    expect(await db.pendingMigrations()).toEqual([]);
    await writeBatch(db, [makeRecord({ requestId: "req_4", workspaceId: "ws" })], Date.now());
    const rows = await db.orm
      .select({ seq: db.t.requestRecords.seq, id: db.t.requestRecords.id, requestId: db.t.requestRecords.requestId })
      .from(db.t.requestRecords);
    expect(rows.map((r) => r.requestId)).toEqual(["req_1", "req_2", "req_3", "req_4"]);
    expect(rows.slice(0, 3).map((r) => r.id)).toEqual(["rec_c", "rec_a", "rec_b"]);
    const seqs = rows.map((r) => r.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  } finally {
    await db.close();
  }
  // The id is no longer indexed; the two lookup indexes are back.
  const check = new BunSqlite(path, { readonly: true });
  const indexes = (check.query("PRAGMA index_list(request_records)").all() as { name: string }[]).map((i) => i.name).sort();
  check.close();
  expect(indexes).toEqual(["rr_ws_created_idx", "rr_ws_request_idx"]);
});
