// Shared rate limiter: the token buckets live in Redis, so N instances together allow a class's limit,
// not N times it. One Lua script per call reads, refills, takes and writes the bucket atomically (no
// read-modify-write race between instances) and uses Redis' own clock, so instances with skewed clocks
// still agree. A bucket's key expires when it would be full again: a missing key is a full bucket.
// Classes with a high limit take their tokens through local leases (token-lease.ts): one call hands
// out up to a lease's worth and the checks spend it without a round trip each.
//
// While Redis is down (or a command fails) checks go to a local MemoryRateLimiter: each instance then
// enforces the limit on its own traffic only — logged once per transition — and Redis is used again
// as soon as it is back. Leases are dropped then, not spent.
import type { Logger } from "../platform/logger";
import type { RedisConnection } from "../platform/redis";
import { bucketConfig, RATE_CLASSES, type LimitTable, type RateClass } from "./classes";
import type { LimitResult, RateLimiter } from "./limiter";
import { MemoryRateLimiter } from "./memory-store";
import { refused, TokenLeases, type Grant, type TokenLeaseOptions } from "./token-lease";
import type { BucketConfig } from "./token-bucket";

// Both scripts refill the bucket to Redis' clock first. KEYS[1] bucket hash {t: tokens, u: updated ms}.
const REFILL = `
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = redis.call('HMGET', KEYS[1], 't', 'u')
local tokens = tonumber(s[1])
local upd = tonumber(s[2])
local missing = tokens == nil or upd == nil
if missing then
  tokens = cap
  upd = now
end
if now > upd then
  tokens = math.min(cap, tokens + (now - upd) * rate)
  upd = now
end
`;

// ARGV capacity, refill per ms, n. Grants min(n, whole tokens); with n = 1 it is the plain take.
// Returns {granted, remaining whole tokens, reset epoch ms, retry-after ms (0 when granted)}.
const TAKE_N = `${REFILL}
local n = tonumber(ARGV[3])
local granted = math.max(0, math.min(n, math.floor(tokens)))
local retry = 0
if granted > 0 then
  tokens = tokens - granted
else
  retry = math.max(1, math.ceil((math.min(1, cap) - tokens) / rate))
end
local fullIn = math.max(1, math.ceil((cap - tokens) / rate))
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'u', tostring(upd))
redis.call('PEXPIRE', KEYS[1], fullIn)
return {granted, math.floor(tokens), upd + fullIn, retry}
`;

// ARGV capacity, refill per ms, n unused tokens. A missing key is already full: nothing to give.
const GIVE = `${REFILL}
if missing then return 0 end
tokens = math.min(cap, tokens + tonumber(ARGV[3]))
local fullIn = math.ceil((cap - tokens) / rate)
if fullIn < 1 then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'u', tostring(upd))
redis.call('PEXPIRE', KEYS[1], fullIn)
return 1
`;

export class RedisRateLimiter implements RateLimiter {
  private readonly configs: Record<RateClass, BucketConfig>;
  private readonly local: MemoryRateLimiter;
  private readonly leases: TokenLeases;
  private usingLocal = false;
  private readonly takeScript: (keys: string[], args: (string | number)[]) => Promise<number[]>;
  private readonly giveScript: (keys: string[], args: (string | number)[]) => Promise<number>;

  constructor(
    private readonly redis: RedisConnection,
    private readonly limits: LimitTable,
    private readonly logger: Logger,
    leaseOptions: TokenLeaseOptions = {},
  ) {
    this.configs = Object.fromEntries(RATE_CLASSES.map((c) => [c, bucketConfig(limits[c])])) as Record<RateClass, BucketConfig>;
    this.local = new MemoryRateLimiter(limits);
    this.takeScript = redis.defineScript("switchyardTakeTokens", TAKE_N);
    this.giveScript = redis.defineScript("switchyardGiveTokens", GIVE);
    const store = {
      take: (c: RateClass, k: string, n: number) => this.takeN(c, k, n),
      give: (c: RateClass, k: string, n: number) => this.give(c, k, n),
    };
    this.leases = new TokenLeases(store, this.configs, limits, (err) => this.fail(err), leaseOptions);
  }

  /**
   * Synchronous when the key's lease holds a token, else a promise. `now` only affects the local
   * fallback: shared buckets run on Redis' clock.
   */
  check(cls: RateClass, key: string, now?: number): LimitResult | Promise<LimitResult> {
    if (!this.redis.isUp()) {
      this.leases.drop();
      this.fallback(true);
      return this.local.check(cls, key, now);
    }
    const r = this.leases.leased(cls) ? this.leases.check(cls, key) : this.take(cls, key);
    if (!(r instanceof Promise)) return r;
    return r.then(
      (x) => {
        this.fallback(false);
        return x;
      },
      (err: unknown) => {
        this.fail(err);
        return this.local.check(cls, key, now);
      },
    );
  }

  /** Gives back the tokens leases hold (best effort): call before closing the connection. */
  close(): Promise<void> {
    return this.leases.close();
  }

  /** Tokens this instance holds in the lease of (class, key). */
  heldTokens(cls: RateClass, key: string): number {
    return this.leases.held(cls, key);
  }

  /** Gives back what expired leases hold (the background sweep runs this; tests drive it with their clock). */
  sweepLeases(): Promise<void> {
    return this.leases.sweep();
  }

  private async take(cls: RateClass, key: string): Promise<LimitResult> {
    const g = await this.takeN(cls, key, 1);
    const limit = this.limits[cls].perMinute;
    return g.granted === 1 ? { ok: true, limit, remaining: g.remaining, resetAt: g.resetAt } : refused(limit, g);
  }

  private async takeN(cls: RateClass, key: string, n: number): Promise<Grant> {
    const cfg = this.configs[cls];
    const [granted, remaining, resetAt, retryAfterMs] = await this.takeScript(
      [this.redis.key("rl", cls, key)],
      [cfg.capacity, cfg.refillPerMs, n],
    );
    return { granted: granted!, remaining: remaining!, resetAt: resetAt!, retryAfterMs: retryAfterMs! };
  }

  private async give(cls: RateClass, key: string, n: number): Promise<void> {
    if (!this.redis.isUp()) return;
    const cfg = this.configs[cls];
    await this.giveScript([this.redis.key("rl", cls, key)], [cfg.capacity, cfg.refillPerMs, n]);
  }

  private fail(err: unknown): void {
    this.leases.drop();
    this.fallback(true, err);
  }

  private fallback(on: boolean, err?: unknown): void {
    if (on === this.usingLocal) return;
    this.usingLocal = on;
    if (on) {
      this.logger.error("rate limits fall back to per-instance buckets (Redis unavailable)", {
        error: err instanceof Error ? err.message : err === undefined ? "disconnected" : String(err),
      });
    } else this.logger.warn("rate limits are shared through Redis again");
  }
}
