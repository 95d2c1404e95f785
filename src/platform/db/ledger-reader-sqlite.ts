// The credit ledger read in commit order on SQLite: SQLite commits one writer at a time across every
// process, so a row's rowid order is its commit order, and each read sums only the rows after the last
// rowid seen. (The Postgres reader, ledger-reader-pg.ts, needs transaction IDs for the same promise.)
import type { Database as BunSqlite } from "bun:sqlite";
import type { LedgerReader } from "./database";

/**
 * `serialise` runs the read through the connection's transaction lock: on this one connection, a read
 * between the statements of an open transaction would see its uncommitted rows, and a rollback would
 * then leave the cursor past rowids SQLite hands out again.
 */
export function sqliteLedgerReader(raw: BunSqlite, serialise: <T>(fn: () => Promise<T>) => Promise<T>): LedgerReader {
  let cursor = 0;
  let sumAfter: ReturnType<BunSqlite["query"]> | undefined;
  let lastRowid: ReturnType<BunSqlite["query"]> | undefined;
  return {
    next: () =>
      serialise(async () => {
        sumAfter ??= raw.query(
          "SELECT workspace_id AS ws, sum(amount_microdollars) AS total, max(rowid) AS last FROM credit_ledger WHERE rowid > ? GROUP BY workspace_id",
        );
        lastRowid ??= raw.query("SELECT max(rowid) AS last FROM credit_ledger");
        // Rows are never deleted, so the last rowid only grows; below the cursor means the table was
        // rebuilt with new rowids (a VACUUM after manual deletes): then everything is summed again.
        const last = (lastRowid.get() as { last: number | null }).last ?? 0;
        const reset = last < cursor;
        if (reset) cursor = 0;
        const sums = new Map<string, number>();
        for (const r of sumAfter.all(cursor) as { ws: string; total: number; last: number }[]) {
          sums.set(r.ws, r.total);
          if (r.last > cursor) cursor = r.last;
        }
        return { sums, reset };
      }),
  };
}
