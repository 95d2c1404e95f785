// The credit ledger read in commit order on Postgres. Sequence values and timestamps are handed out
// before commit, so "rows after the last one seen" can skip a row whose transaction commits late; the
// poller used to re-sum a 10–20 minute window every second instead, a cost that grew with traffic.
//
// Each ledger row carries the ID of the transaction that inserted it (column default). One statement
// reads, under one snapshot, that snapshot's xmin — every transaction below it has finished — and the
// rows whose xid is at or above the previous xmin. A row below the new xmin is never read again: it was
// either visible now (counted now or before) or rolled back. A row at or above it was visible now or
// will be read by a later poll; the IDs of those already counted are kept (few: the rows of
// transactions that committed while an older one was still running) so that none is counted twice.
// A transaction left open for long (anywhere in the cluster) holds xmin back, and each poll then
// re-reads the rows since it: slower, never wrong.
import type postgres from "postgres";
import type { LedgerReader } from "./database";

interface Row {
  horizon: string;
  id: string | null;
  ws: string | null;
  amount: string | null;
  xid: string | null;
}

export function pgLedgerReader(sql: postgres.Sql): LedgerReader {
  let cursor = "0";
  let counted = new Set<string>();
  return {
    async next() {
      const rows = await sql<Row[]>`
        SELECT h.horizon::text AS horizon, l.id, l.workspace_id AS ws, l.amount_microdollars::text AS amount, l.xid::text AS xid
        FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon) h
        LEFT JOIN credit_ledger l ON l.xid >= ${cursor}::xid8`;
      const horizon = BigInt(rows[0]!.horizon);
      const sums = new Map<string, number>();
      const next = new Set<string>();
      for (const r of rows) {
        if (r.id === null) continue; // the horizon's row when nothing matched
        if (BigInt(r.xid!) >= horizon) next.add(r.id);
        if (counted.has(r.id)) continue;
        sums.set(r.ws!, (sums.get(r.ws!) ?? 0) + Number(r.amount));
      }
      cursor = horizon.toString();
      counted = next;
      return { sums, reset: false };
    },
  };
}
