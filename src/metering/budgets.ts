// Budget counters: spend per budget per UTC period, with reservations for calls in flight.
//
// Concurrency rule (docs/contract.md "Rate limits, credits and budgets"): a call is admitted while spent + reserved < limit for every enforced
// budget that applies, and then reserves its estimated maximum cost. So once the counters reach the
// limit no call is admitted, and the overshoot is bounded by the calls already in flight (each of
// which reserved an upper bound of its cost). A lone call is never refused before spend reaches the
// limit, even when its own estimate is larger than the headroom left.
//
// BudgetCounters is the seam for a shared (Redis) implementation; MemoryBudgetCounters is the
// single-instance one. Methods may return promises so that both fit.
import type { Database } from "../platform/db/database";
import { budgetApplies, budgetFromRow, loadSpend, type BudgetDef, type SpendContext } from "./budget-spend";
import { periodBounds, type BudgetPeriod } from "./periods";
import { formatUsd } from "./pricing";

export type { BudgetDef, BudgetScope, SpendContext } from "./budget-spend";

type MaybePromise<T> = T | Promise<T>;

export interface Reservation {
  readonly id: string;
  readonly ctx: SpendContext;
  /** When the call started: its spend belongs to the periods containing this time. */
  readonly at: number;
  readonly amount: number;
  /** Budgets holding part of this reservation, with the period key it was taken in. */
  readonly holds: { budgetId: string; periodKey: string }[];
}

export type ReserveResult =
  { ok: true; reservation: Reservation } | { ok: false; code: "budget_exceeded"; budget: BudgetDef; message: string };

export interface BudgetCounters {
  reserve(ctx: SpendContext, estimatedMicrodollars: number, now?: number): MaybePromise<ReserveResult>;
  /**
   * Ends a reservation and adds the call's actual cost to every budget that applies to `served` (the
   * attempt that served the call; the reservation's own context when absent).
   */
  settle(reservation: Reservation, actualMicrodollars: number, served?: SpendContext): MaybePromise<void>;
  /** Ends a reservation without spend (the attempt failed or was not charged). */
  release(reservation: Reservation): MaybePromise<void>;
  /** Current-period spend of a budget (the budget record's `spend`), microdollars. */
  spend(budgetId: string, now?: number): MaybePromise<number>;
  /** X-Budget-{Daily,Weekly,Monthly}-{Spend,Limit} for a call by this key; only periods with a budget. */
  headers(workspaceId: string, apiKeyId: string | null, now?: number): MaybePromise<Record<string, string>>;
  upsertBudget(def: BudgetDef): Promise<void>;
  removeBudget(budgetId: string): MaybePromise<void>;
  load(): Promise<void>;
}

interface PeriodState {
  periodStart: number;
  /** End of the period (exclusive): calls inside [start, end) reuse this state without recomputing bounds. */
  periodEnd: number;
  periodKey: string;
  spent: number;
  reserved: number;
}

const NONE: readonly BudgetDef[] = [];

/** How long an unsettled reservation holds headroom (the longest stream plus margin). */
export const RESERVATION_TTL_MS = 15 * 60_000;

export const HEADER_PERIOD: Record<BudgetPeriod, string> = { daily: "Daily", weekly: "Weekly", monthly: "Monthly" };

export class MemoryBudgetCounters implements BudgetCounters {
  private readonly defs = new Map<string, BudgetDef>();
  private readonly byWorkspace = new Map<string, Set<string>>();
  private readonly states = new Map<string, PeriodState>();
  private readonly ended = new WeakSet<Reservation>();
  /** Open reservations and when they stop holding headroom (as the Redis store's do). */
  private readonly open = new Map<Reservation, number>();
  private seq = 0;
  private lastSweep = 0;

  constructor(
    private readonly db: Database,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Loads every budget and its current-period spend from the database. */
  async load(): Promise<void> {
    const rows = await this.db.orm.select().from(this.db.t.budgets);
    for (const row of rows) await this.upsertBudget(budgetFromRow(row));
  }

  async upsertBudget(def: BudgetDef): Promise<void> {
    const old = this.defs.get(def.id);
    this.defs.set(def.id, { ...def });
    let ids = this.byWorkspace.get(def.workspaceId);
    if (!ids) this.byWorkspace.set(def.workspaceId, (ids = new Set()));
    ids.add(def.id);
    // Spend depends on scope and include_byok; a limit or enforce change keeps the counters.
    const same =
      old && old.scope === def.scope && old.scopeId === def.scopeId && old.period === def.period && old.includeByok === def.includeByok;
    if (same) return;
    const now = this.clock();
    const b = periodBounds(def.period, now);
    // The state exists before the spend is read, so calls admitted meanwhile hold against it (they were not counted at all).
    const st = { periodStart: b.start, periodEnd: b.end, periodKey: b.key, spent: 0, reserved: 0 };
    this.states.set(def.id, st);
    st.spent += await loadSpend(this.db, def, b.start, b.end);
  }

  removeBudget(budgetId: string): void {
    const def = this.defs.get(budgetId);
    if (!def) return;
    this.defs.delete(budgetId);
    this.states.delete(budgetId);
    this.byWorkspace.get(def.workspaceId)?.delete(budgetId);
  }

  budget(budgetId: string): BudgetDef | undefined {
    const def = this.defs.get(budgetId);
    return def ? { ...def } : undefined;
  }

  reserve(ctx: SpendContext, estimatedMicrodollars: number, now = this.clock()): ReserveResult {
    this.sweep(now);
    const applicable = this.applicable(ctx, true);
    for (const def of applicable) {
      const st = this.state(def, now);
      if (st && st.spent + st.reserved >= def.limitMicrodollars) {
        return { ok: false, code: "budget_exceeded", budget: { ...def }, message: exceededMessage(def, st.spent) };
      }
    }
    const amount = Math.max(0, Math.ceil(estimatedMicrodollars));
    const holds: Reservation["holds"] = [];
    for (const def of applicable) {
      const st = this.state(def, now);
      if (!st) continue;
      st.reserved += amount;
      holds.push({ budgetId: def.id, periodKey: st.periodKey });
    }
    // The id only names the reservation (the shared store keys its holds by it): a counter will do here.
    const reservation: Reservation = { id: `r${++this.seq}`, ctx, at: now, amount, holds };
    // Without holds there is nothing for the sweep to release.
    if (holds.length > 0) this.open.set(reservation, now + RESERVATION_TTL_MS);
    return { ok: true, reservation };
  }

  settle(reservation: Reservation, actualMicrodollars: number, served: SpendContext = reservation.ctx): void {
    if (!this.end(reservation)) return;
    if (actualMicrodollars <= 0) return;
    // Budgets created while the call ran count it too: applicability is evaluated now.
    for (const def of this.applicable(served)) {
      const st = this.state(def, reservation.at);
      if (st) st.spent += actualMicrodollars;
    }
  }

  release(reservation: Reservation): void {
    this.end(reservation);
  }

  spend(budgetId: string, now = this.clock()): number {
    const def = this.defs.get(budgetId);
    if (!def) return 0;
    return this.state(def, now)?.spent ?? 0;
  }

  headers(workspaceId: string, apiKeyId: string | null, now = this.clock()): Record<string, string> {
    // Per period, the budget with the least headroom among the workspace's and this key's budgets.
    const ids = this.byWorkspace.get(workspaceId);
    if (!ids?.size) return {};
    const defs: BudgetDef[] = [];
    const spent: number[] = [];
    for (const id of ids) {
      const def = this.defs.get(id)!;
      if (def.scope === "byok" || (def.scope === "api_key" && def.scopeId !== apiKeyId)) continue;
      defs.push(def);
      spent.push(this.state(def, now)?.spent ?? 0);
    }
    return tightestHeaders(defs, spent);
  }

  /** The budgets that count this spend (only the enforced ones: `enforcedOnly`). */
  private applicable(ctx: SpendContext, enforcedOnly = false): readonly BudgetDef[] {
    const ids = this.byWorkspace.get(ctx.workspaceId);
    if (!ids?.size) return NONE; // most workspaces have no budgets: nothing to allocate per call
    const out: BudgetDef[] = [];
    for (const id of ids) {
      const def = this.defs.get(id)!;
      if ((!enforcedOnly || def.enforce) && budgetApplies(def, ctx)) out.push(def);
    }
    return out;
  }

  /**
   * The counters of the period containing `at`, rolled over when `at` is in a later period than the
   * stored one. Null for an earlier period (a call that started before a rollover): its spend no
   * longer matters to enforcement.
   */
  private state(def: BudgetDef, at: number): PeriodState | null {
    let st = this.states.get(def.id);
    if (st && at >= st.periodStart && at < st.periodEnd) return st; // the common case: no date math
    const b = periodBounds(def.period, at);
    if (!st || b.start > st.periodStart) {
      st = { periodStart: b.start, periodEnd: b.end, periodKey: b.key, spent: 0, reserved: 0 };
      this.states.set(def.id, st);
    }
    return b.start < st.periodStart ? null : st;
  }

  /**
   * A reservation that was never settled (a bug, or a call lost in a crash of its own code path) must not
   * hold headroom for ever: past RESERVATION_TTL_MS it is released. Checked at most once a minute.
   */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [r, deadline] of this.open) if (deadline <= now) this.end(r);
  }

  /** Releases the reservation's holds once; false when it had already ended. */
  private end(reservation: Reservation): boolean {
    this.open.delete(reservation);
    if (this.ended.has(reservation)) return false;
    this.ended.add(reservation);
    for (const h of reservation.holds) {
      const st = this.states.get(h.budgetId);
      if (st && st.periodKey === h.periodKey) st.reserved = Math.max(0, st.reserved - reservation.amount);
    }
    return true;
  }
}

export function exceededMessage(def: BudgetDef, spent: number): string {
  const scope =
    def.scope === "workspace" ? "workspace" : def.scope === "api_key" ? `API key ${def.scopeId}` : `BYOK provider ${def.scopeId}`;
  return `The ${def.period} budget for ${scope} is exhausted: spent $${formatUsd(spent)} of $${formatUsd(def.limitMicrodollars)} this period.`;
}

/** The budget headers: per period, the budget with the least headroom among `defs` (spent[i] is defs[i]'s spend). */
export function tightestHeaders(defs: BudgetDef[], spent: number[]): Record<string, string> {
  const tightest = new Map<BudgetPeriod, { def: BudgetDef; spent: number }>();
  defs.forEach((def, i) => {
    const cur = tightest.get(def.period);
    if (!cur || def.limitMicrodollars - spent[i]! < cur.def.limitMicrodollars - cur.spent)
      tightest.set(def.period, { def, spent: spent[i]! });
  });
  const out: Record<string, string> = {};
  for (const [period, { def, spent: s }] of tightest) {
    out[`X-Budget-${HEADER_PERIOD[period]}-Spend`] = formatUsd(s);
    out[`X-Budget-${HEADER_PERIOD[period]}-Limit`] = formatUsd(def.limitMicrodollars);
  }
  return out;
}
