// Shared credit holds (REDIS_URL): each workspace's holds live in one Redis hash, so every instance
// admits against the holds of all instances (the rule of credit-holds.ts). Fields `h:<id>` hold
// "<amount>:<deadline epoch ms>"; expired ones are dropped by the next reserve, so an instance that
// dies mid-call holds nothing for longer than the TTL. The balance itself is each instance's view
// (CreditService, refreshed from the Postgres ledger), passed in by the caller.
//
// While Redis is down, holds are taken in local MemoryCreditHolds (each instance then admits on its own).
import type { Logger } from "../platform/logger";
import type { RedisConnection } from "../platform/redis";
import { RESERVATION_TTL_MS } from "./budgets";
import { MemoryCreditHolds, type CreditHold, type CreditHolds } from "./credit-holds";

/** KEYS[1] the workspace's hash; ARGV id, amount, ttl ms, balance. 1 held, 0 refused. */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = redis.call('HGETALL', KEYS[1])
local held = 0
for j = 1, #h, 2 do
  local v = h[j + 1]
  local sep = string.find(v, ':', 1, true)
  if tonumber(string.sub(v, sep + 1)) < now then
    redis.call('HDEL', KEYS[1], h[j])
  else
    held = held + tonumber(string.sub(v, 1, sep - 1))
  end
end
if tonumber(ARGV[4]) - held <= 0 then return 0 end
redis.call('HSET', KEYS[1], 'h:' .. ARGV[1], ARGV[2] .. ':' .. string.format('%d', now + tonumber(ARGV[3])))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

export class RedisCreditHolds implements CreditHolds {
  private readonly local = new MemoryCreditHolds();
  private readonly reserveScript: (keys: string[], args: (string | number)[]) => Promise<number>;
  /** Holds taken in Redis; the others are the local store's. */
  private readonly shared = new WeakSet<CreditHold>();

  constructor(
    private readonly redis: RedisConnection,
    private readonly logger: Logger,
    private readonly ttlMs: number = RESERVATION_TTL_MS,
  ) {
    this.reserveScript = redis.defineScript("switchyardCreditReserve", RESERVE);
  }

  async reserve(workspaceId: string, balance: number, amount: number): Promise<CreditHold | null> {
    if (this.redis.isUp()) {
      const hold: CreditHold = { id: crypto.randomUUID(), workspaceId, amount: Math.max(0, Math.ceil(amount)) };
      try {
        const ok = await this.reserveScript([this.keyOf(workspaceId)], [hold.id, hold.amount, this.ttlMs, balance]);
        if (ok !== 1) return null;
        this.shared.add(hold);
        return hold;
      } catch (err) {
        this.logger.warn("credit hold taken per instance (Redis unavailable)", { error: String(err) });
      }
    }
    return this.local.reserve(workspaceId, balance, amount);
  }

  async release(hold: CreditHold): Promise<void> {
    if (!this.shared.delete(hold)) return this.local.release(hold);
    try {
      await this.redis.client.hdel(this.keyOf(hold.workspaceId), `h:${hold.id}`);
    } catch (err) {
      // The hold expires on its own after the TTL.
      this.logger.error("credit hold not released in Redis", { error: String(err), hold_id: hold.id });
    }
  }

  keyOf(workspaceId: string): string {
    return this.redis.key("credit-holds", workspaceId);
  }
}
