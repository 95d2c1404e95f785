// Shared budget counters (REDIS_URL): spend and reservations per budget period live in Redis, so every
// instance admits against the same numbers (the rule of docs/contract.md "Rate limits, credits and budgets": admit while spent + reserved < limit,
// then reserve). A period's hash is seeded from Postgres (the request records) the first time any
// instance needs it, and expires a day after the period ends (redis-budget-periods.ts). Reservations are
// taken by the admission script, with the call's credit hold when it has one, and ended in batches
// (redis-admission.ts).
//
// Budget definitions are small and read on every call, so each instance keeps them in memory: applied
// at once for writes through this instance, on invalidation messages from others, and re-read from
// the database every refreshMs so that a missed message heals.
//
// While Redis is down, calls go to a local MemoryBudgetCounters (rebuilt from Postgres when Redis is
// lost; each instance then enforces on its own view). Spend settled locally during an outage is not
// replayed into Redis: Postgres has it, and the next seeded period starts from Postgres.
import type { Database } from "../platform/db/database";
import type { Logger } from "../platform/logger";
import type { RedisConnection } from "../platform/redis";
import { budgetApplies, budgetFromRow, type BudgetDef, type SpendContext } from "./budget-spend";
import {
  exceededMessage,
  MemoryBudgetCounters,
  RESERVATION_TTL_MS,
  tightestHeaders,
  type BudgetCounters,
  type Reservation,
  type ReserveResult,
} from "./budgets";
import { periodBounds } from "./periods";
import { RedisAdmission, type CreditPart } from "./redis-admission";
import { BudgetPeriods } from "./redis-budget-periods";
import type { SettleOp } from "./redis-settle-queue";

export interface RedisBudgetOptions {
  /** Definitions re-read from the database, ms. Default 2 s (inside the 5 s propagation promise). */
  refreshMs?: number;
  /** A reservation not settled within this long stops holding headroom. Default 15 min. */
  reservationTtlMs?: number;
  clock?: () => number;
  /** Shared with the credit holds in shared mode, so that a call's hold and reservation take one script. */
  admission?: RedisAdmission;
}

/** A shared reservation taken with a credit hold in the same script (redis-reservations.ts). */
export type ReservedWithCredit = { result: ReserveResult | { ok: false; code: "insufficient_credits" }; creditHeld: boolean };

export class RedisBudgetCounters implements BudgetCounters {
  private readonly defs = new Map<string, BudgetDef>();
  /** Budget IDs per workspace: a call looks only at its own workspace's budgets, not every budget. */
  private readonly byWorkspace = new Map<string, Set<string>>();
  private local: MemoryBudgetCounters;
  /** Reservations taken in Redis → the keys holding them. Others belong to the local counters they came from. */
  private readonly sharedHolds = new WeakMap<Reservation, string[]>();
  private readonly localOwner = new WeakMap<Reservation, MemoryBudgetCounters>();
  private readonly periods: BudgetPeriods;
  readonly admission: RedisAdmission;
  private readonly clock: () => number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private usingLocal = false;

  constructor(
    private readonly redis: RedisConnection,
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly opts: RedisBudgetOptions = {},
  ) {
    this.clock = opts.clock ?? Date.now;
    this.local = new MemoryBudgetCounters(db, this.clock);
    this.admission = opts.admission ?? new RedisAdmission(redis, logger, opts.reservationTtlMs ?? RESERVATION_TTL_MS);
    this.periods = new BudgetPeriods(redis, db, this.admission.view);
  }

  async load(): Promise<void> {
    await Promise.all([this.reloadDefinitions(), this.local.load()]);
  }

  /** Periodic refresh, and reactions to Redis going away (rebuild the local fallback) and returning. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(
      () => void this.reloadDefinitions().catch((err) => this.logger.warn("budget definitions refresh failed", { error: String(err) })),
      this.opts.refreshMs ?? 2_000,
    );
    this.timer.unref?.();
    this.redis.onChange((up) => {
      if (!up) void this.rebuildLocal();
    });
  }

  /** Stops the refresh and sends the queued settlements. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.admission.stop();
  }

  /** Re-reads every budget definition (invalidation message or timer). */
  async reloadDefinitions(): Promise<void> {
    const rows = await this.db.orm.select().from(this.db.t.budgets);
    const seen = new Set<string>();
    for (const row of rows) {
      const def = budgetFromRow(row);
      seen.add(def.id);
      const old = this.defs.get(def.id);
      if (!old || JSON.stringify(old) !== JSON.stringify(def)) await this.upsertBudget(def);
    }
    for (const id of [...this.defs.keys()]) if (!seen.has(id)) this.removeBudget(id);
  }

  async upsertBudget(def: BudgetDef): Promise<void> {
    this.unindex(def.id);
    this.defs.set(def.id, { ...def });
    let ids = this.byWorkspace.get(def.workspaceId);
    if (!ids) this.byWorkspace.set(def.workspaceId, (ids = new Set()));
    ids.add(def.id);
    await this.local.upsertBudget(def);
  }

  removeBudget(budgetId: string): void {
    this.unindex(budgetId);
    this.defs.delete(budgetId);
    this.local.removeBudget(budgetId);
  }

  private unindex(id: string): void {
    const old = this.defs.get(id);
    if (old) this.byWorkspace.get(old.workspaceId)?.delete(id);
  }

  /** The workspace's budgets that pass `keep`. */
  private defsOf(workspaceId: string, keep: (d: BudgetDef) => boolean): BudgetDef[] {
    const out: BudgetDef[] = [];
    for (const id of this.byWorkspace.get(workspaceId) ?? []) {
      const d = this.defs.get(id)!;
      if (keep(d)) out.push(d);
    }
    return out;
  }

  async reserve(ctx: SpendContext, estimatedMicrodollars: number, now = this.clock()): Promise<ReserveResult> {
    if (this.redis.isUp()) {
      try {
        const { result } = await this.sharedReserve(ctx, estimatedMicrodollars, now);
        this.fallback(false);
        // Without a credit part the script never answers insufficient_credits.
        return result as ReserveResult;
      } catch (err) {
        this.fallback(true, err);
      }
    } else this.fallback(true);
    const owner = this.local;
    const r = owner.reserve(ctx, estimatedMicrodollars, now);
    if (r.ok) this.localOwner.set(r.reservation, owner);
    return r;
  }

  /** The reservation and the credit hold `credit` asks for, in one script; null while Redis cannot take them. */
  async reserveWithCredit(
    ctx: SpendContext,
    estimated: number,
    credit: CreditPart,
    now = this.clock(),
  ): Promise<ReservedWithCredit | null> {
    if (!this.redis.isUp()) return null;
    try {
      const r = await this.sharedReserve(ctx, estimated, now, credit);
      this.fallback(false);
      return r;
    } catch (err) {
      this.fallback(true, err);
      return null;
    }
  }

  settle(reservation: Reservation, actualMicrodollars: number, served: SpendContext = reservation.ctx): Promise<void> | undefined {
    return this.end(reservation, Math.max(0, Math.round(actualMicrodollars)), served);
  }

  release(reservation: Reservation): Promise<void> | undefined {
    return this.end(reservation, 0);
  }

  async spend(budgetId: string, now = this.clock()): Promise<number> {
    const def = this.defs.get(budgetId);
    if (!def) return 0;
    if (!this.redis.isUp()) return this.local.spend(budgetId, now);
    try {
      return (await this.periods.spentOf([def], now))[0]!;
    } catch {
      return this.local.spend(budgetId, now);
    }
  }

  headers(workspaceId: string, apiKeyId: string | null, now = this.clock()): Record<string, string> | Promise<Record<string, string>> {
    const defs = this.defsOf(workspaceId, (d) => d.scope !== "byok" && (d.scope !== "api_key" || d.scopeId === apiKeyId));
    if (defs.length === 0) return {};
    if (!this.redis.isUp()) return this.local.headers(workspaceId, apiKeyId, now);
    // What Redis told this instance within the last second (its admission script, usually): no read per call.
    const known = defs.map((d) => this.admission.view.current(this.periods.keyFor(d, now)));
    if (known.every((v) => v !== null)) return tightestHeaders(defs, known as number[]);
    const missing = defs.filter((_, i) => known[i] === null);
    return this.periods.spentOf(missing, now).then(
      (read) => {
        let j = 0;
        return tightestHeaders(
          defs,
          known.map((v) => v ?? read[j++]!),
        );
      },
      () => this.local.headers(workspaceId, apiKeyId, now),
    );
  }

  private async sharedReserve(ctx: SpendContext, estimated: number, now: number, credit?: CreditPart): Promise<ReservedWithCredit> {
    const enforced = this.defsOf(ctx.workspaceId, (d) => d.enforce && budgetApplies(d, ctx));
    const budgetKeys = enforced.map((d) => this.periods.keyFor(d, now));
    const amount = Math.max(0, Math.ceil(estimated));
    const id = crypto.randomUUID();
    // No budget and no hold: nothing to ask Redis.
    const v =
      budgetKeys.length || credit
        ? await this.admission.admit({
            id,
            amount,
            budgetKeys,
            limits: enforced.map((d) => d.limitMicrodollars),
            ...(credit ? { credit } : {}),
            seed: (i) => this.periods.seed(enforced[i]!, now),
          })
        : ({ kind: "admitted", creditHeld: false } as const);
    if (v.kind === "no_credit") return { result: { ok: false, code: "insufficient_credits" }, creditHeld: false };
    if (v.kind === "over_budget") {
      const def = enforced[v.index]!;
      return {
        result: { ok: false, code: "budget_exceeded", budget: { ...def }, message: exceededMessage(def, v.spent) },
        creditHeld: false,
      };
    }
    const holds = enforced.map((d) => ({ budgetId: d.id, periodKey: periodBounds(d.period, now).key }));
    const reservation: Reservation = { id, ctx: { ...ctx }, at: now, amount, holds };
    this.sharedHolds.set(reservation, budgetKeys);
    return { result: { ok: true, reservation }, creditHeld: v.creditHeld };
  }

  /** Ends a reservation where it was taken; the cost counts in the periods containing reservation.at. */
  private end(reservation: Reservation, cost: number, served: SpendContext = reservation.ctx): Promise<void> | undefined {
    const holdKeys = this.sharedHolds.get(reservation);
    const owner = this.localOwner.get(reservation);
    this.sharedHolds.delete(reservation);
    this.localOwner.delete(reservation);
    if (owner) owner.settle(reservation, cost, served);
    // The local counters see every settled cost too, so a later fallback starts close to the truth.
    if (owner !== this.local && cost > 0) this.local.settle({ ...reservation, holds: [] }, cost, served);
    if (!holdKeys) return;
    const ops: SettleOp[] = holdKeys.map((k) => ({ end: k, field: `r:${reservation.id}` }));
    // Budgets created while the call ran count it too: applicability is evaluated now.
    if (cost > 0) {
      for (const d of this.defsOf(served.workspaceId, (d) => budgetApplies(d, served)))
        ops.push({ spend: this.periods.keyFor(d, reservation.at), cost });
    }
    // Queued with the other calls' ends (one script for all); a call no budget applies to sends nothing.
    return this.admission.settles.push(reservation.id, ops);
  }

  private async rebuildLocal(): Promise<void> {
    const fresh = new MemoryBudgetCounters(this.db, this.clock);
    try {
      await fresh.load();
      this.local = fresh;
    } catch (err) {
      this.logger.warn("local budget counters not rebuilt from the database; keeping the previous ones", { error: String(err) });
    }
  }

  private fallback(on: boolean, err?: unknown): void {
    if (on === this.usingLocal) return;
    this.usingLocal = on;
    if (on) {
      this.logger.error("budget counters fall back to per-instance counters (Redis unavailable)", {
        error: err instanceof Error ? err.message : err === undefined ? "disconnected" : String(err),
      });
    } else this.logger.warn("budget counters are shared through Redis again");
  }
}
