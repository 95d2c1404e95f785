// Credit balances, held in memory so the request path never waits for the database.
//
//   balance(ws) = ledger sum in the database (as last polled) − debits made here whose ledger rows the
//                 poller has not yet seen
//
// Debits are applied in memory at settle time; their ledger rows are written later by the RecordWriter
// batch. When a batch commits (onFlushed), its debits are marked flushed, but they only leave the pending
// set once a poll that *started after* the commit has returned: such a poll certainly counts the row, so
// nothing is ever counted zero times, and at worst a debit is counted twice for one poll interval (the
// balance looks lower, never higher, than it is).
//
// The ledger itself is read by ledger-totals.ts: only the rows committed since the previous poll.
import type { Database } from "../platform/db/database";
import { chargesCredits, type RequestRecord } from "./request-record";
import { LedgerTotals } from "./ledger-totals";

export interface CreditServiceOptions {
  /** Poll interval of start(), ms. Default 1000 (docs/configuration.md: CLI changes are seen within 2 s). */
  pollIntervalMs?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}

/** A committed batch's debits for one workspace, waiting for a poll that started after the commit. */
interface FlushedDebit {
  workspaceId: string;
  amount: number;
  /** The poll sequence number current when the batch committed. */
  flushedAtPoll: number;
}

export class CreditService {
  private readonly pollIntervalMs: number;
  private readonly now: () => number;
  private readonly ledger: LedgerTotals;
  /** Ledger sum per workspace, as of the last poll. */
  private totals: ReadonlyMap<string, number> = new Map();
  /**
   * Debits not yet seen by a poll, per workspace (unflushed and flushed alike), and the flushed part
   * by batch: kept per batch and workspace, not per call (a map entry per call was garbage at every request).
   */
  private pendingByWs = new Map<string, number>();
  private flushed: FlushedDebit[] = [];
  private pollSeq = 0;
  private updatedAt = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private polling: Promise<void> | null = null;

  constructor(
    private readonly db: Database,
    private readonly opts: CreditServiceOptions = {},
  ) {
    this.pollIntervalMs = opts.pollIntervalMs ?? 1000;
    this.now = opts.now ?? Date.now;
    this.ledger = new LedgerTotals(db);
  }

  /** Loads every workspace's balance from the ledger. Call once before serving. */
  async load(): Promise<void> {
    await this.refresh();
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.refresh().catch((err) => this.opts.onError?.(err));
    }, this.pollIntervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Balance in microdollars (for X-Credits-Balance-Microdollars and the balance endpoint). */
  balance(workspaceId: string): number {
    return (this.totals.get(workspaceId) ?? 0) - (this.pendingByWs.get(workspaceId) ?? 0);
  }

  /** Epoch ms of the last change seen for the workspace (the balance record's updated_at). */
  lastUpdated(workspaceId: string): number | null {
    return this.updatedAt.get(workspaceId) ?? null;
  }

  /** docs/contract.md "Rate limits, credits and budgets": a platform-key request needs a positive balance when credits are enforced. */
  canSpend(workspaceId: string): boolean {
    return this.balance(workspaceId) > 0;
  }

  /**
   * Applies a call's charge in memory at settle time; called once per record the RecordWriter will write
   * (same rule as its ledger rows: chargesCredits). The charge reaches the ledger with the batch that
   * writes the call's final record (one debit row per workspace per batch, record-batch.ts).
   */
  debitRecord(r: RequestRecord): void {
    if (!chargesCredits(r)) return;
    this.bumpPending(r.workspaceId, r.costMicrodollars);
    this.updatedAt.set(r.workspaceId, this.now());
  }

  /** RecordWriter onFlushed hook: the batch (each record once) and its debit rows are committed. */
  markFlushed(records: readonly RequestRecord[]): void {
    let last: FlushedDebit | undefined;
    for (const r of records) {
      if (!chargesCredits(r)) continue;
      if (last?.workspaceId === r.workspaceId) last.amount += r.costMicrodollars;
      else {
        last = { workspaceId: r.workspaceId, amount: r.costMicrodollars, flushedAtPoll: this.pollSeq };
        this.flushed.push(last);
      }
    }
  }

  /** Adds (or, when negative, removes) credit with a ledger row written at once. Returns the new balance. */
  async add(workspaceId: string, microdollars: number, reason: string): Promise<number> {
    if (!Number.isSafeInteger(microdollars)) throw new RangeError("credit amount must be an integer number of microdollars");
    const t = this.db.t.creditLedger;
    const at = this.now();
    await this.db.orm
      .insert(t)
      .values({ id: crypto.randomUUID(), workspaceId, amountMicrodollars: microdollars, reason, requestId: null, createdAt: at });
    await this.refresh();
    return this.balance(workspaceId);
  }

  /** Polls the ledger (see the header comment). Concurrent calls share one poll. */
  refresh(): Promise<void> {
    if (!this.polling) {
      this.polling = this.poll().finally(() => {
        this.polling = null;
      });
    }
    return this.polling;
  }

  private async poll(): Promise<void> {
    const seq = ++this.pollSeq;
    const now = this.now();
    const read = await this.ledger.read();
    for (const ws of read.changed) this.updatedAt.set(ws, now);
    this.totals = read.totals;
    // Entries are in commit order, so the ones this poll certainly saw are a prefix.
    let seen = 0;
    while (seen < this.flushed.length && this.flushed[seen]!.flushedAtPoll < seq) {
      const f = this.flushed[seen++]!;
      this.bumpPending(f.workspaceId, -f.amount);
    }
    if (seen > 0) this.flushed = this.flushed.slice(seen);
  }

  private bumpPending(ws: string, delta: number): void {
    const v = (this.pendingByWs.get(ws) ?? 0) + delta;
    if (v === 0) this.pendingByWs.delete(ws);
    else this.pendingByWs.set(ws, v);
  }
}
