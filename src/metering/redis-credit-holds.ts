// Shared credit holds (REDIS_URL): each workspace's holds live in one Redis hash, so every instance
// admits against the holds of all instances (the rule of credit-holds.ts). Fields `h:<id>` hold
// "<amount>:<deadline epoch ms>"; expired ones are dropped by the next reserve, so an instance that
// dies mid-call holds nothing for longer than the TTL. Holds are taken by the admission script
// (redis-admission.ts, with the call's budget reservation when it has one) and released in the batched
// settle. The balance itself is each instance's view
// (CreditService, refreshed from the Postgres ledger), passed in by the caller.
//
// While Redis is down, holds are taken in local MemoryCreditHolds (each instance then admits on its own).
import type { Logger } from "../platform/logger";
import type { RedisConnection } from "../platform/redis";
import { RESERVATION_TTL_MS } from "./budgets";
import { MemoryCreditHolds, type CreditHold, type CreditHolds } from "./credit-holds";
import { RedisAdmission } from "./redis-admission";

export class RedisCreditHolds implements CreditHolds {
  private readonly local = new MemoryCreditHolds();
  /** Holds taken in Redis; the others are the local store's. */
  private readonly shared = new WeakSet<CreditHold>();
  readonly admission: RedisAdmission;

  /** `admission` is shared with the budget counters in shared mode (one script for both); else its own. */
  constructor(
    private readonly redis: RedisConnection,
    private readonly logger: Logger,
    ttlMs: number = RESERVATION_TTL_MS,
    admission?: RedisAdmission,
  ) {
    this.admission = admission ?? new RedisAdmission(redis, logger, ttlMs);
  }

  async reserve(workspaceId: string, balance: number, amount: number): Promise<CreditHold | null> {
    if (this.redis.isUp()) {
      const hold: CreditHold = { id: crypto.randomUUID(), workspaceId, amount: Math.max(0, Math.ceil(amount)) };
      try {
        const credit = { key: this.keyOf(workspaceId), balance, required: true };
        const v = await this.admission.admit({
          id: hold.id,
          amount: hold.amount,
          budgetKeys: [],
          limits: [],
          credit,
          seed: async () => {},
        });
        return v.kind === "admitted" ? this.adopt(hold) : null;
      } catch (err) {
        this.logger.warn("credit hold taken per instance (Redis unavailable)", { error: String(err) });
      }
    }
    return this.local.reserve(workspaceId, balance, amount);
  }

  /** A hold the admission script took in Redis (with the call's budget reservation, redis-reservations.ts). */
  adopt(hold: CreditHold): CreditHold {
    this.shared.add(hold);
    return hold;
  }

  /** Queued with the other calls' ends; on failure the hold expires on its own after the TTL. */
  release(hold: CreditHold): void | Promise<void> {
    if (!this.shared.delete(hold)) return this.local.release(hold);
    return this.admission.settles.push(hold.id, [{ end: this.keyOf(hold.workspaceId), field: `h:${hold.id}` }]);
  }

  keyOf(workspaceId: string): string {
    return this.redis.key("credit-holds", workspaceId);
  }
}
