// The credit ledger's total per workspace, re-read by the credit poller every second. Two readers,
// chosen by what the database can promise:
//
// - CursorLedgerTotals (SQLite): SQLite commits one writer at a time across every process, so a row's
//   rowid order is its commit order; each poll sums only the rows after the last rowid seen. Exact, and
//   its cost follows the new rows, not the table (the windowed reader below re-summed up to 20 minutes
//   of rows every second: at a few thousand requests a second that was the biggest single cost of an
//   idle-ish gateway, growing with traffic).
// - WindowLedgerTotals (Postgres): sequence values are handed out before commit, so no cursor is safe.
//   The sum is split at a checkpoint time: rows older than it are summed once into `base`; each poll
//   sums the rows at or after it. The checkpoint trails the clock by `settleMs` and advances now and
//   then. Ledger rows carry their write time (record-batch.ts), so no row can appear below the
//   checkpoint after it has moved, unless a writer's clock is off by settleMs.
import { and, gte, lt, sql } from "drizzle-orm";
import type { Database } from "../platform/db/database";

export interface LedgerRead {
  /** Ledger sum per workspace, all rows. */
  totals: ReadonlyMap<string, number>;
  /** Workspaces whose sum changed since the previous read. */
  changed: Iterable<string>;
}

export interface LedgerTotals {
  read(): Promise<LedgerRead>;
}

export function ledgerTotals(db: Database, settleMs: number, now: () => number): LedgerTotals {
  return db.ledgerSince ? new CursorLedgerTotals(db) : new WindowLedgerTotals(db, settleMs, now);
}

class CursorLedgerTotals implements LedgerTotals {
  private readonly totals = new Map<string, number>();
  private cursor = 0;

  constructor(private readonly db: Database) {}

  async read(): Promise<LedgerRead> {
    const { sums, cursor, reset } = await this.db.ledgerSince!(this.cursor);
    this.cursor = cursor;
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

class WindowLedgerTotals implements LedgerTotals {
  private base = new Map<string, number>();
  private recent = new Map<string, number>();
  /** 0 until the first read, which sums everything below the first checkpoint into base. */
  private checkpoint = 0;

  constructor(
    private readonly db: Database,
    private readonly settleMs: number,
    private readonly now: () => number,
  ) {}

  async read(): Promise<LedgerRead> {
    const now = this.now();
    if (this.checkpoint === 0) {
      this.checkpoint = now - this.settleMs;
      this.base = await this.sumRange(undefined, this.checkpoint);
    } else if (now - this.checkpoint > 2 * this.settleMs) {
      // Advance the checkpoint once it trails by twice the settle time: rows in between are final.
      const next = now - this.settleMs;
      const moved = await this.sumRange(this.checkpoint, next);
      for (const [ws, v] of moved) this.base.set(ws, (this.base.get(ws) ?? 0) + v);
      this.checkpoint = next;
    }
    const recent = await this.sumRange(this.checkpoint, undefined);
    const changed: string[] = [];
    for (const ws of new Set([...recent.keys(), ...this.recent.keys()])) {
      if ((recent.get(ws) ?? 0) !== (this.recent.get(ws) ?? 0)) changed.push(ws);
    }
    this.recent = recent;
    const totals = new Map(this.base);
    for (const [ws, v] of recent) totals.set(ws, (totals.get(ws) ?? 0) + v);
    return { totals, changed };
  }

  // Built once (on first use: the table exists only after migrations): this runs every second, and
  // building a Drizzle query costs far more than running it.
  private sumQueryCache: ReturnType<WindowLedgerTotals["buildSumQuery"]> | undefined;
  private get sumQuery() {
    return (this.sumQueryCache ??= this.buildSumQuery());
  }

  private buildSumQuery() {
    const t = this.db.t.creditLedger;
    return this.db.orm
      .select({ ws: t.workspaceId, total: sql<string | number>`sum(${t.amountMicrodollars})` })
      .from(t)
      .where(and(gte(t.createdAt, sql.placeholder("from")), lt(t.createdAt, sql.placeholder("to"))))
      .groupBy(t.workspaceId)
      .prepare();
  }

  private async sumRange(from: number | undefined, to: number | undefined): Promise<Map<string, number>> {
    const rows = await this.sumQuery.execute({ from: from ?? Number.MIN_SAFE_INTEGER, to: to ?? Number.MAX_SAFE_INTEGER });
    // Postgres returns SUM(bigint) as numeric text; SQLite as a number.
    return new Map(rows.map((r) => [r.ws, Number(r.total ?? 0)]));
  }
}
