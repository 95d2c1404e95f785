// The Idempotency-Key "still running" lock shared by every instance (REDIS_URL): SET key token NX PX,
// released only by its holder (compare-and-delete in Lua), so two instances never both run the same
// BYOK create and a lock that expired and was taken by someone else is never released by the first.
// While Redis is down the lock is per instance (logged by the connection); the stored response in
// Postgres still answers every replay once the first request finished.
import type { RedisConnection } from "../../platform/redis";
import { MemoryIdempotencyLock, type IdempotencyLock } from "./lock";

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export class RedisIdempotencyLock implements IdempotencyLock {
  private readonly local = new MemoryIdempotencyLock();
  /** key → our token in Redis, or null when the lock was taken locally. */
  private readonly held = new Map<string, string | null>();
  private readonly releaseScript: (keys: string[], args: (string | number)[]) => Promise<number>;

  constructor(private readonly redis: RedisConnection) {
    this.releaseScript = redis.defineScript("switchyardIdempotencyRelease", RELEASE);
  }

  async acquire(key: string, ttlMs: number): Promise<boolean> {
    if (this.redis.isUp()) {
      const token = crypto.randomUUID();
      try {
        const ok = (await this.redis.client.set(this.redis.key("idem", key), token, "PX", ttlMs, "NX")) === "OK";
        if (ok) this.held.set(key, token);
        return ok;
      } catch {
        // Redis failed mid-call: fall through to the local lock rather than refusing the write.
      }
    }
    const ok = await this.local.acquire(key, ttlMs);
    if (ok) this.held.set(key, null);
    return ok;
  }

  async release(key: string): Promise<void> {
    const token = this.held.get(key);
    this.held.delete(key);
    if (token === undefined) return;
    if (token === null) return this.local.release(key);
    // If Redis is unreachable now, the lock expires after its TTL.
    await this.releaseScript([this.redis.key("idem", key)], [token]).catch(() => undefined);
  }
}
