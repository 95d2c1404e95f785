// The period hashes of the shared budget counters (redis-budgets.ts): their names, their seeding from
// Postgres (the request records) the first time any instance needs one, and reading their spend. A
// hash expires a day after its period ends.
import type { Database } from "../platform/db/database";
import { withDeadline } from "../platform/deadline";
import { sha256Hex } from "../platform/ids";
import type { RedisConnection } from "../platform/redis";
import { loadSpend, type BudgetDef } from "./budget-spend";
import { periodBounds } from "./periods";
import { SEED } from "./redis-budget-scripts";
import type { SpendView } from "./redis-spend-view";

const DAY_MS = 86_400_000;
/** A call waits this long at most for Postgres to seed a period; past it the local counters admit it. */
const SEED_READ_MS = 1_000;

export class BudgetPeriods {
  private readonly seeding = new Map<string, Promise<void>>();
  private readonly seedScript: (keys: string[], args: (string | number)[]) => Promise<number>;
  private readonly shapes = new WeakMap<BudgetDef, string>();

  constructor(
    private readonly redis: RedisConnection,
    private readonly db: Database,
    private readonly view: SpendView,
  ) {
    this.seedScript = redis.defineScript("switchyardBudgetSeed", SEED);
  }

  /** The period hash of `def` at `at`. Scope and include_byok are in the name: changing them starts a fresh seed. */
  keyFor(def: BudgetDef, at: number): string {
    // The shape hash is per definition object (definitions are replaced, not mutated, when they change).
    let shape = this.shapes.get(def);
    if (shape === undefined) {
      shape = sha256Hex(`${def.scope}|${def.scopeId}|${def.includeByok}`).slice(0, 8);
      this.shapes.set(def, shape);
    }
    return this.redis.key("budget", def.id, periodBounds(def.period, at).key, shape);
  }

  /** Seeds a period hash from Postgres unless it exists (one query per key per instance at a time). */
  seed(def: BudgetDef, now: number): Promise<void> {
    const key = this.keyFor(def, now);
    let p = this.seeding.get(key);
    if (!p) {
      p = (async () => {
        const b = periodBounds(def.period, now);
        const spent = await withDeadline<number | null>(loadSpend(this.db, def, b.start, b.end), SEED_READ_MS, () => null);
        if (spent === null) throw new Error("budget period not seeded: the database did not answer in time");
        await this.seedScript([key], [spent, b.end + DAY_MS]);
      })().finally(() => this.seeding.delete(key));
      this.seeding.set(key, p);
    }
    return p;
  }

  /**
   * Current-period spend of each def, seeding periods nobody has seeded yet. The spend still queued for
   * a hash (settle batching), taken when the read is sent, adds what the read misses.
   */
  async spentOf(defs: BudgetDef[], now: number): Promise<number[]> {
    const keys = defs.map((d) => this.keyFor(d, now));
    const read = async () => {
      const sent = keys.map((k) => {
        const seq = this.view.ticket();
        return this.redis.client.hget(k, "spent").then((v) => {
          if (v !== null) this.view.observe(k, Number(v), seq);
          return v;
        });
      });
      const queued = keys.map((k) => this.view.unsentSpend(k));
      const values = await Promise.all(sent);
      // An absent hash drops queued spend (the seed from Postgres counts it instead).
      return values.map((v, i) => (v === null ? null : Number(v) + queued[i]!));
    };
    let values = await read();
    if (values.some((v) => v === null)) {
      await Promise.all(defs.map((d, i) => (values[i] === null ? this.seed(d, now) : undefined)));
      values = await read();
    }
    return values.map((v) => v ?? 0);
  }
}
