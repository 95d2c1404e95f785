// Shared admission's Redis side, common to the budget counters and the credit holds so that a call
// needing both takes them in one RESERVE script (redis-budget-scripts.ts) and ends them in one batched
// SETTLE (redis-settle-queue.ts). One RedisAdmission per connection; stop() drains the queued ends.
import type { Logger } from "../platform/logger";
import type { RedisConnection } from "../platform/redis";
import { RESERVATION_TTL_MS } from "./budgets";
import { RESERVE } from "./redis-budget-scripts";
import { SettleQueue, type SettleQueueOptions } from "./redis-settle-queue";
import { SpendView } from "./redis-spend-view";

/** A credit hold taken in the same script: the workspace's holds hash and the balance it holds against. */
export interface CreditPart {
  key: string;
  balance: number;
  /** A refused hold refuses the call; otherwise the call is admitted without one. */
  required: boolean;
}

export interface AdmitRequest {
  id: string;
  amount: number;
  /** The enforced budgets' period hashes and their limits (may be empty). */
  budgetKeys: string[];
  limits: number[];
  credit?: CreditPart;
  /** Seeds the period hash budgetKeys[i] from Postgres (the script found it absent). */
  seed(i: number): Promise<void>;
}

export type AdmitVerdict =
  { kind: "admitted"; creditHeld: boolean } | { kind: "no_credit" } | { kind: "over_budget"; index: number; spent: number };

export class RedisAdmission {
  readonly settles: SettleQueue;
  /** The spend of the periods this instance heard of, for the budget headers. */
  readonly view = new SpendView();
  private readonly reserveScript: (keys: string[], args: (string | number)[]) => Promise<number[]>;

  constructor(
    redis: RedisConnection,
    logger: Logger,
    readonly ttlMs: number = RESERVATION_TTL_MS,
    settle: SettleQueueOptions = {},
  ) {
    this.reserveScript = redis.defineScript("switchyardAdmit", RESERVE);
    this.settles = new SettleQueue(redis, logger, this.view, settle);
  }

  /** One script; a period nobody has seeded yet is seeded and the script retried (several may be new). */
  async admit(r: AdmitRequest): Promise<AdmitVerdict> {
    const mode = r.credit ? (r.credit.required ? 2 : 1) : 0;
    const keys = r.credit ? [...r.budgetKeys, r.credit.key] : r.budgetKeys;
    const args = [r.id, r.amount, this.ttlMs, mode, r.credit?.balance ?? 0, ...r.limits];
    for (let attempt = 0; attempt <= r.budgetKeys.length; attempt++) {
      const seq = this.view.ticket();
      const reply = await this.reserveScript(keys, args);
      const [verdict, index, spent, held] = reply;
      if (verdict === -1) {
        await r.seed(index! - 1);
        continue;
      }
      if (verdict === 2) return { kind: "no_credit" };
      if (verdict === 0) {
        this.view.observe(r.budgetKeys[index! - 1]!, spent!, seq);
        return { kind: "over_budget", index: index! - 1, spent: spent! };
      }
      r.budgetKeys.forEach((key, i) => this.view.observe(key, reply[4 + i]!, seq));
      return { kind: "admitted", creditHeld: held === 1 };
    }
    throw new Error("budget periods could not be seeded");
  }

  stop(): Promise<void> {
    return this.settles.drain();
  }
}
