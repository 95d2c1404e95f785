// Shared budget counters (REDIS_URL): spend and reservations per budget period live in Redis, so every
// instance admits against the same numbers (the rule of docs/contract.md "Rate limits, credits and budgets": admit while spent + reserved < limit,
// then reserve). A period's hash is seeded from Postgres (the request records) the first time any
// instance needs it, and expires a day after the period ends. Scripts: redis-budget-scripts.ts.
//
// Budget definitions are small and read on every call, so each instance keeps them in memory: applied
// at once for writes through this instance, on invalidation messages from others, and re-read from
// the database every refreshMs so that a missed message heals.
//
// While Redis is down, calls go to a local MemoryBudgetCounters (rebuilt from Postgres when Redis is
// lost; each instance then enforces on its own view). Spend settled locally during an outage is not
// replayed into Redis: Postgres has it, and the next seeded period starts from Postgres.
import type { Database } from "../platform/db/database";
import { withDeadline } from "../platform/deadline";
import { sha256Hex } from "../platform/ids";
import type { Logger } from "../platform/logger";
import type { RedisConnection } from "../platform/redis";
import { budgetApplies, budgetFromRow, loadSpend, type BudgetDef, type SpendContext } from "./budget-spend";
import { exceededMessage, HEADER_PERIOD, MemoryBudgetCounters, type BudgetCounters, type Reservation, type ReserveResult } from "./budgets";
import { periodBounds, type BudgetPeriod } from "./periods";
import { formatUsd } from "./pricing";
import { RESERVE, SEED, SETTLE } from "./redis-budget-scripts";

export interface RedisBudgetOptions {
  /** Definitions re-read from the database, ms. Default 2 s (inside the 5 s propagation promise). */
  refreshMs?: number;
  /** A reservation not settled within this long stops holding headroom. Default 15 min. */
  reservationTtlMs?: number;
  clock?: () => number;
}

type Script<T> = (keys: string[], args: (string | number)[]) => Promise<T>;
const DAY_MS = 86_400_000;
/** A call waits this long at most for Postgres to seed a period; past it the local counters admit it. */
const SEED_READ_MS = 1_000;

export class RedisBudgetCounters implements BudgetCounters {
  private readonly defs = new Map<string, BudgetDef>();
  /** Budget IDs per workspace: a call looks only at its own workspace's budgets, not every budget. */
  private readonly byWorkspace = new Map<string, Set<string>>();
  private local: MemoryBudgetCounters;
  /** Reservations taken in Redis → the keys holding them. Others belong to the local counters they came from. */
  private readonly sharedHolds = new WeakMap<Reservation, string[]>();
  private readonly localOwner = new WeakMap<Reservation, MemoryBudgetCounters>();
  private readonly seeding = new Map<string, Promise<void>>();
  private readonly scripts: { seed: Script<number>; reserve: Script<number[]>; settle: Script<number> };
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
    this.scripts = {
      seed: redis.defineScript("switchyardBudgetSeed", SEED),
      reserve: redis.defineScript("switchyardBudgetReserve", RESERVE),
      settle: redis.defineScript("switchyardBudgetSettle", SETTLE),
    };
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

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
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
        const r = await this.sharedReserve(ctx, estimatedMicrodollars, now);
        this.fallback(false);
        return r;
      } catch (err) {
        this.fallback(true, err);
      }
    } else this.fallback(true);
    const owner = this.local;
    const r = owner.reserve(ctx, estimatedMicrodollars, now);
    if (r.ok) this.localOwner.set(r.reservation, owner);
    return r;
  }

  async settle(reservation: Reservation, actualMicrodollars: number, served: SpendContext = reservation.ctx): Promise<void> {
    await this.end(reservation, Math.max(0, Math.round(actualMicrodollars)), served);
  }

  async release(reservation: Reservation): Promise<void> {
    await this.end(reservation, 0);
  }

  async spend(budgetId: string, now = this.clock()): Promise<number> {
    const def = this.defs.get(budgetId);
    if (!def) return 0;
    if (!this.redis.isUp()) return this.local.spend(budgetId, now);
    try {
      return (await this.spentOf([def], now))[0]!;
    } catch {
      return this.local.spend(budgetId, now);
    }
  }

  async headers(workspaceId: string, apiKeyId: string | null, now = this.clock()): Promise<Record<string, string>> {
    const defs = this.defsOf(workspaceId, (d) => d.scope !== "byok" && (d.scope !== "api_key" || d.scopeId === apiKeyId));
    if (defs.length === 0) return {};
    let spent: number[];
    try {
      if (!this.redis.isUp()) return this.local.headers(workspaceId, apiKeyId, now);
      spent = await this.spentOf(defs, now);
    } catch {
      return this.local.headers(workspaceId, apiKeyId, now);
    }
    // Per period, the budget with the least headroom (as the memory counters do).
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

  private async sharedReserve(ctx: SpendContext, estimated: number, now: number): Promise<ReserveResult> {
    const enforced = this.defsOf(ctx.workspaceId, (d) => d.enforce && budgetApplies(d, ctx));
    const keys = enforced.map((d) => this.keyFor(d, now));
    const amount = Math.max(0, Math.ceil(estimated));
    const id = crypto.randomUUID();
    const args = [id, amount, this.opts.reservationTtlMs ?? 15 * 60_000, ...enforced.map((d) => d.limitMicrodollars)];
    // A period nobody has seeded yet is seeded and the script retried (a few times: several may be new).
    for (let attempt = 0; attempt <= keys.length; attempt++) {
      const [verdict, index, spent] = keys.length ? await this.scripts.reserve(keys, args) : [1, 0, 0];
      if (verdict === -1) {
        await this.seed(enforced[index! - 1]!, now);
        continue;
      }
      if (verdict === 0) {
        const def = enforced[index! - 1]!;
        return { ok: false, code: "budget_exceeded", budget: { ...def }, message: exceededMessage(def, spent!) };
      }
      const holds = enforced.map((d) => ({ budgetId: d.id, periodKey: periodBounds(d.period, now).key }));
      const reservation: Reservation = { id, ctx: { ...ctx }, at: now, amount, holds };
      this.sharedHolds.set(reservation, keys);
      return { ok: true, reservation };
    }
    throw new Error("budget periods could not be seeded");
  }

  /** Ends a reservation where it was taken; the cost counts in the periods containing reservation.at. */
  private async end(reservation: Reservation, cost: number, served: SpendContext = reservation.ctx): Promise<void> {
    const holdKeys = this.sharedHolds.get(reservation);
    const owner = this.localOwner.get(reservation);
    this.sharedHolds.delete(reservation);
    this.localOwner.delete(reservation);
    if (owner) owner.settle(reservation, cost, served);
    // The local counters see every settled cost too, so a later fallback starts close to the truth.
    if (owner !== this.local && cost > 0) this.local.settle({ ...reservation, holds: [] }, cost, served);
    if (!holdKeys) return;
    // Budgets created while the call ran count it too: applicability is evaluated now.
    const spendKeys =
      cost > 0 ? this.defsOf(served.workspaceId, (d) => budgetApplies(d, served)).map((d) => this.keyFor(d, reservation.at)) : [];
    // A call no budget applies to holds nothing and adds to nothing: no round trip.
    if (holdKeys.length === 0 && spendKeys.length === 0) return;
    try {
      await this.scripts.settle([...holdKeys, ...spendKeys], [reservation.id, holdKeys.length, cost]);
    } catch (err) {
      // The reservation expires on its own; the cost is in the request record (Postgres).
      this.logger.error("budget settle not applied in Redis", {
        error: String(err),
        reservation_id: reservation.id,
        cost_microdollars: cost,
      });
    }
  }

  /** Current-period spend of each def, seeding periods nobody has seeded yet. */
  private async spentOf(defs: BudgetDef[], now: number): Promise<number[]> {
    const keys = defs.map((d) => this.keyFor(d, now));
    const read = async () => (await Promise.all(keys.map((k) => this.redis.client.hget(k, "spent")))) as (string | null)[];
    let values = await read();
    if (values.some((v) => v === null)) {
      await Promise.all(defs.map((d, i) => (values[i] === null ? this.seed(d, now) : undefined)));
      values = await read();
    }
    return values.map((v) => Number(v ?? 0));
  }

  /** Seeds a period hash from Postgres unless it exists (one query per key per instance at a time). */
  private seed(def: BudgetDef, now: number): Promise<void> {
    const key = this.keyFor(def, now);
    let p = this.seeding.get(key);
    if (!p) {
      p = (async () => {
        const b = periodBounds(def.period, now);
        const spent = await withDeadline<number | null>(loadSpend(this.db, def, b.start, b.end), SEED_READ_MS, () => null);
        if (spent === null) throw new Error("budget period not seeded: the database did not answer in time");
        await this.scripts.seed([key], [spent, b.end + DAY_MS]);
      })().finally(() => this.seeding.delete(key));
      this.seeding.set(key, p);
    }
    return p;
  }

  /** The period hash of `def` at `at`. Scope and include_byok are in the name: changing them starts a fresh seed. */
  private keyFor(def: BudgetDef, at: number): string {
    // The shape hash is per definition object (definitions are replaced, not mutated, when they change).
    let shape = this.shapes.get(def);
    if (shape === undefined) {
      shape = sha256Hex(`${def.scope}|${def.scopeId}|${def.includeByok}`).slice(0, 8);
      this.shapes.set(def, shape);
    }
    return this.redis.key("budget", def.id, periodBounds(def.period, at).key, shape);
  }

  private readonly shapes = new WeakMap<BudgetDef, string>();

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
