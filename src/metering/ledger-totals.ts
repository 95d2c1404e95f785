// The credit ledger's total per workspace, kept up to date by the credit poller every second. The
// database's LedgerReader hands over only the rows committed since the last read (a rowid cursor on
// SQLite, a transaction-ID horizon on Postgres), so a poll costs what was written since the last one,
// not the table or a time window of it (re-summing 10–20 minutes of ledger every second was the biggest
// single cost of an idle-ish gateway on Postgres, growing with traffic and with the number of workspaces).
import type { Database, LedgerReader } from "../platform/db/database";

export interface LedgerRead {
  /** Ledger sum per workspace, all rows. */
  totals: ReadonlyMap<string, number>;
  /** Workspaces whose sum changed since the previous read. */
  changed: Iterable<string>;
}

export class LedgerTotals {
  private readonly totals = new Map<string, number>();
  private readonly reader: LedgerReader;

  constructor(db: Database) {
    this.reader = db.ledgerReader();
  }

  async read(): Promise<LedgerRead> {
    const { sums, reset } = await this.reader.next();
    if (reset) {
      const changed = new Set([...this.totals.keys(), ...sums.keys()]);
      this.totals.clear();
      for (const [ws, v] of sums) this.totals.set(ws, v);
      return { totals: this.totals, changed };
    }
    for (const [ws, v] of sums) this.totals.set(ws, (this.totals.get(ws) ?? 0) + v);
    return { totals: this.totals, changed: sums.keys() };
  }
}
