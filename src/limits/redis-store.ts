// Shared rate limiter: the token buckets live in Redis, so N instances together allow a class's limit,
// not N times it. One Lua script per check reads, refills, takes and writes the bucket atomically (no
// read-modify-write race between instances) and uses Redis' own clock, so instances with skewed clocks
// still agree. A bucket's key expires when it would be full again: a missing key is a full bucket.
//
// While Redis is down (or a command fails) checks go to a local MemoryRateLimiter: each instance then
// enforces the limit on its own traffic only — logged once per transition — and Redis is used again
// as soon as it is back.
import type { Logger } from "../platform/logger";
import type { RedisConnection } from "../platform/redis";
import { bucketConfig, RATE_CLASSES, type LimitTable, type RateClass } from "./classes";
import type { LimitResult, RateLimiter } from "./limiter";
import { MemoryRateLimiter } from "./memory-store";
import type { BucketConfig } from "./token-bucket";

// KEYS[1] bucket hash {t: tokens, u: updated ms}; ARGV capacity, refill per ms.
// Returns {ok 0|1, remaining whole tokens, reset epoch ms, retry-after ms}.
const TAKE = `
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = redis.call('HMGET', KEYS[1], 't', 'u')
local tokens = tonumber(s[1])
local upd = tonumber(s[2])
if tokens == nil or upd == nil then
  tokens = cap
  upd = now
end
if now > upd then
  tokens = math.min(cap, tokens + (now - upd) * rate)
  upd = now
end
local ok = 0
local retry = 0
if tokens >= 1 then
  tokens = tokens - 1
  ok = 1
else
  retry = math.max(1, math.ceil((math.min(1, cap) - tokens) / rate))
end
local fullIn = math.max(1, math.ceil((cap - tokens) / rate))
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'u', tostring(upd))
redis.call('PEXPIRE', KEYS[1], fullIn)
return {ok, math.floor(tokens), upd + fullIn, retry}
`;

export class RedisRateLimiter implements RateLimiter {
  private readonly configs: Record<RateClass, BucketConfig>;
  private readonly local: MemoryRateLimiter;
  private usingLocal = false;
  private readonly takeScript: (keys: string[], args: (string | number)[]) => Promise<number[]>;

  constructor(
    private readonly redis: RedisConnection,
    private readonly limits: LimitTable,
    private readonly logger: Logger,
  ) {
    this.configs = Object.fromEntries(RATE_CLASSES.map((c) => [c, bucketConfig(limits[c])])) as Record<RateClass, BucketConfig>;
    this.local = new MemoryRateLimiter(limits);
    this.takeScript = redis.defineScript("switchyardTakeToken", TAKE);
  }

  /** `now` only affects the local fallback: shared buckets run on Redis' clock. */
  async check(cls: RateClass, key: string, now?: number): Promise<LimitResult> {
    if (this.redis.isUp()) {
      try {
        const r = await this.take(cls, key);
        this.fallback(false);
        return r;
      } catch (err) {
        this.fallback(true, err);
      }
    } else this.fallback(true);
    return this.local.check(cls, key, now);
  }

  private async take(cls: RateClass, key: string): Promise<LimitResult> {
    const cfg = this.configs[cls];
    const [ok, remaining, resetAt, retryAfterMs] = await this.takeScript([this.redis.key("rl", cls, key)], [cfg.capacity, cfg.refillPerMs]);
    const limit = this.limits[cls].perMinute;
    if (ok === 1) return { ok: true, limit, remaining: remaining!, resetAt: resetAt! };
    return { ok: false, code: "rate_limit_exceeded", limit, remaining: 0, resetAt: resetAt!, retryAfterMs: retryAfterMs! };
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
