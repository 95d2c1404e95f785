// Single-instance rate limiter: one token bucket per (class, key) in a Map. Memory stays bounded by the
// number of keys active recently: buckets that have refilled completely are indistinguishable from new
// ones, so a sweep (at most once per sweepIntervalMs, run from check() — no timer to leak) forgets them.
import { bucketConfig, RATE_CLASSES, type LimitTable, type RateClass } from "./classes";
import type { LimitResult, RateLimiter } from "./limiter";
import { isFull, takeTokens, type BucketConfig, type BucketState } from "./token-bucket";

export interface MemoryRateLimiterOptions {
  /** Default 60 s. */
  sweepIntervalMs?: number;
  now?: () => number;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { cfg: BucketConfig; state: BucketState }>();
  private readonly configs: Record<RateClass, BucketConfig>;
  private readonly sweepIntervalMs: number;
  private readonly clock: () => number;
  private lastSweep: number;

  constructor(
    private readonly limits: LimitTable,
    opts: MemoryRateLimiterOptions = {},
  ) {
    this.configs = Object.fromEntries(RATE_CLASSES.map((c) => [c, bucketConfig(limits[c])])) as Record<RateClass, BucketConfig>;
    this.sweepIntervalMs = opts.sweepIntervalMs ?? 60_000;
    this.clock = opts.now ?? Date.now;
    this.lastSweep = this.clock();
  }

  check(cls: RateClass, key: string, now = this.clock()): LimitResult {
    if (now - this.lastSweep >= this.sweepIntervalMs) this.sweep(now);
    const id = `${cls}\u0000${key}`;
    const cfg = this.configs[cls];
    const r = takeTokens(cfg, this.buckets.get(id)?.state, 1, now);
    this.buckets.set(id, { cfg, state: r.state });
    const limit = this.limits[cls].perMinute;
    if (r.ok) return { ok: true, limit, remaining: r.remaining, resetAt: r.resetAt };
    return { ok: false, code: "rate_limit_exceeded", limit, remaining: 0, resetAt: r.resetAt, retryAfterMs: r.retryAfterMs };
  }

  /** Number of buckets held (for tests and metrics). */
  size(): number {
    return this.buckets.size;
  }

  sweep(now = this.clock()): void {
    this.lastSweep = now;
    for (const [id, b] of this.buckets) if (isFull(b.cfg, b.state, now)) this.buckets.delete(id);
  }
}
