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
// Cheap polling: the ledger sum is split at a checkpoint time. Rows older than the checkpoint are summed
// once into `base`; each poll sums only rows with created_at ≥ checkpoint. The checkpoint trails the clock
// by SETTLE_MS and advances now and then. Ledger rows carry their write time (record-batch.ts, add()), so
// no row can appear below the checkpoint after it has moved, unless a writer's clock is off by SETTLE_MS.
import { and, gte, lt, sql } from "drizzle-orm";
import type { Database } from "../platform/db/database";
import { chargesCredits, debitLedgerId, type RequestRecord } from "./request-record";

export interface CreditServiceOptions {
  /** Poll interval of start(), ms. Default 1000 (CONTRACT §1: CLI changes are seen within 2 s). */
  pollIntervalMs?: number;
  /** How far the checkpoint trails the clock, ms. Default 10 minutes. */
  settleMs?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}

interface PendingDebit {
  workspaceId: string;
  amount: number;
  /** The poll sequence number current when the batch holding this debit committed; undefined before. */
  flushedAtPoll?: number;
}

export class CreditService {
  private readonly pollIntervalMs: number;
  private readonly settleMs: number;
  private readonly now: () => number;
  /** Ledger sum per workspace of rows older than `checkpoint`. */
  private base = new Map<string, number>();
  /** Ledger sum per workspace of rows at or after `checkpoint`, as of the last poll. */
  private recent = new Map<string, number>();
  private checkpoint = 0;
  /** Pending debits by ledger ID, and their totals per workspace. */
  private pending = new Map<string, PendingDebit>();
  private pendingByWs = new Map<string, number>();
  private pollSeq = 0;
  private updatedAt = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private polling: Promise<void> | null = null;

  constructor(
    private readonly db: Database,
    private readonly opts: CreditServiceOptions = {},
  ) {
    this.pollIntervalMs = opts.pollIntervalMs ?? 1000;
    this.settleMs = opts.settleMs ?? 10 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** Loads every workspace's balance from the ledger. Call once before serving. */
  async load(): Promise<void> {
    this.checkpoint = this.now() - this.settleMs;
    this.base = await this.sumRange(undefined, this.checkpoint);
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
    return (this.base.get(workspaceId) ?? 0) + (this.recent.get(workspaceId) ?? 0) - (this.pendingByWs.get(workspaceId) ?? 0);
  }

  /** Epoch ms of the last change seen for the workspace (the balance record's updated_at). */
  lastUpdated(workspaceId: string): number | null {
    return this.updatedAt.get(workspaceId) ?? null;
  }

  /** CONTRACT §5: a platform-key request needs a positive balance when credits are enforced. */
  canSpend(workspaceId: string): boolean {
    return this.balance(workspaceId) > 0;
  }

  /**
   * Applies a call's charge in memory at settle time. The ledger row comes from the RecordWriter when it
   * writes the call's final record with chargeCredits; the same request ID links the two.
   */
  debit(workspaceId: string, recordId: string, microdollars: number): void {
    if (microdollars <= 0) return;
    const id = debitLedgerId(recordId);
    if (this.pending.has(id)) return;
    this.pending.set(id, { workspaceId, amount: microdollars });
    this.bumpPending(workspaceId, microdollars);
    this.updatedAt.set(workspaceId, this.now());
  }

  /** debit() for a record that the RecordWriter will turn into a ledger row (same rule: chargesCredits). */
  debitRecord(r: RequestRecord): void {
    if (chargesCredits(r)) this.debit(r.workspaceId, r.recordId, r.costMicrodollars);
  }

  /** RecordWriter onFlushed hook: the batch's debit rows are committed. */
  markFlushed(records: readonly RequestRecord[]): void {
    for (const r of records) {
      if (!chargesCredits(r)) continue;
      const p = this.pending.get(debitLedgerId(r.recordId));
      if (p && p.flushedAtPoll === undefined) p.flushedAtPoll = this.pollSeq;
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
    // Advance the checkpoint once it trails by twice the settle time: rows in between are final.
    if (now - this.checkpoint > 2 * this.settleMs) {
      const next = now - this.settleMs;
      const moved = await this.sumRange(this.checkpoint, next);
      for (const [ws, v] of moved) this.base.set(ws, (this.base.get(ws) ?? 0) + v);
      this.checkpoint = next;
    }
    const recent = await this.sumRange(this.checkpoint, undefined);
    for (const ws of new Set([...recent.keys(), ...this.recent.keys()])) {
      if ((recent.get(ws) ?? 0) !== (this.recent.get(ws) ?? 0)) this.updatedAt.set(ws, now);
    }
    this.recent = recent;
    for (const [id, p] of this.pending) {
      if (p.flushedAtPoll !== undefined && p.flushedAtPoll < seq) {
        this.pending.delete(id);
        this.bumpPending(p.workspaceId, -p.amount);
      }
    }
  }

  // Built once (on first use: the table exists only after migrations): this runs every second, and
  // building a Drizzle query costs far more than running it.
  private sumQueryCache: ReturnType<CreditService["buildSumQuery"]> | undefined;
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

  private bumpPending(ws: string, delta: number): void {
    const v = (this.pendingByWs.get(ws) ?? 0) + delta;
    if (v === 0) this.pendingByWs.delete(ws);
    else this.pendingByWs.set(ws, v);
  }
}
