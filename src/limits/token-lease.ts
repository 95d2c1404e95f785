// Local leases of shared tokens (shared mode): an instance takes up to n tokens from a key's Redis bucket
// in one script call and spends them locally, so a hot key costs one round trip per lease instead of one
// per request. Tokens leave Redis before they are used, so the instances together never admit more than
// the bucket gives out; what a lease still holds when it expires goes back to the bucket.
//
// A lease is small by construction: at most LEASE_RATE_MS of the class's refill rate, an eighth of its
// burst and MAX_LEASE tokens. A class whose cap is 1 (every limit up to 600/min) is not leased at all.
// A key starts at one token per call and doubles its lease while it keeps using leases up quickly.
import { RATE_CLASSES, type LimitTable, type RateClass } from "./classes";
import type { LimitResult } from "./limiter";
import type { BucketConfig } from "./token-bucket";

/** What a lease may hold back from the other instances: 100 ms of the refill rate. */
const LEASE_RATE_MS = 100;
/** An absolute cap, whatever the limit: one instance never hoards more than this per key. */
const MAX_LEASE = 256;
/** A small burst is never taken by one instance: at most this share of the bucket's capacity. */
const BURST_SHARE = 1 / 8;
/** Held tokens go back to the bucket this long after the last grant, so a key that goes quiet here frees its allowance. */
export const LEASE_MS = 1_000;
/** Refills closer together than this mean the key outruns its lease: double it. */
const GROW_MS = 100;
/** Refills further apart than this mean the key slowed down: halve it. */
const SHRINK_MS = 500;

/** One script call's answer: tokens granted (0..n) and the bucket as Redis saw it after the grant. */
export interface Grant {
  granted: number;
  /** Whole tokens left in the shared bucket. */
  remaining: number;
  resetAt: number;
  /** 0 when granted > 0; else ms until one token is available. */
  retryAfterMs: number;
}

export interface LeaseStore {
  take(cls: RateClass, key: string, n: number): Promise<Grant>;
  /** Unused tokens back to the shared bucket (capped at its capacity). */
  give(cls: RateClass, key: string, n: number): Promise<void>;
}

export interface TokenLeaseOptions {
  now?: () => number;
  /** How often expired leases are given back. Default 250 ms. */
  sweepEveryMs?: number;
}

interface Lease {
  cls: RateClass;
  key: string;
  /** Tokens held here, already taken from Redis. */
  tokens: number;
  /** Tokens one refill aims at (1..cap). */
  size: number;
  expiresAt: number;
  lastRefillAt: number;
  /** The shared bucket's remaining at the last grant. */
  remote: number;
  resetAt: number;
  refill: Promise<Grant | Failed> | null;
  /** Checks waiting for the refill in flight. */
  waiting: number;
}

class Failed {
  constructor(readonly error: unknown) {}
}

/** The largest lease of a bucket: 1 means the class is never leased. */
export function leaseCap(cfg: BucketConfig): number {
  const cap = Math.floor(Math.min(cfg.refillPerMs * LEASE_RATE_MS, cfg.capacity * BURST_SHARE, MAX_LEASE));
  return Math.max(1, cap);
}

export class TokenLeases {
  private readonly leases = new Map<string, Lease>();
  private readonly caps: Record<RateClass, number>;
  private readonly clock: () => number;
  private readonly sweepEveryMs: number;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly store: LeaseStore,
    configs: Record<RateClass, BucketConfig>,
    private readonly limits: LimitTable,
    /** A background refill failed: the caller falls back (and drops the leases). */
    private readonly onError: (err: unknown) => void,
    opts: TokenLeaseOptions = {},
  ) {
    this.caps = Object.fromEntries(RATE_CLASSES.map((c) => [c, leaseCap(configs[c])])) as Record<RateClass, number>;
    this.clock = opts.now ?? Date.now;
    this.sweepEveryMs = opts.sweepEveryMs ?? 250;
  }

  /** Whether (class) is leased; if not, the caller takes one token per check as before. */
  leased(cls: RateClass): boolean {
    return this.caps[cls] > 1;
  }

  /** One token of (class, key): synchronous while the lease holds one; a promise (rejecting if Redis fails) when it must wait. */
  check(cls: RateClass, key: string): LimitResult | Promise<LimitResult> {
    const id = `${cls}\u0000${key}`;
    const lease = this.leases.get(id);
    if (lease && lease.tokens > 0 && this.clock() < lease.expiresAt) return this.use(lease);
    return this.wait(id, cls, key);
  }

  /** Tokens held here for (class, key): what this instance may admit without asking Redis. */
  held(cls: RateClass, key: string): number {
    return this.leases.get(`${cls}\u0000${key}`)?.tokens ?? 0;
  }

  /** Gives back what expired leases hold and forgets them; resolves when Redis has them. */
  async sweep(): Promise<void> {
    const now = this.clock();
    const gives: Promise<void>[] = [];
    for (const [id, l] of this.leases) {
      if (now < l.expiresAt || l.refill || l.waiting > 0) continue;
      this.leases.delete(id);
      if (l.tokens > 0) gives.push(this.giveBack(l));
    }
    if (this.leases.size === 0) this.stopTimer();
    await Promise.all(gives);
  }

  /** Forgets every lease without giving anything back (Redis is unreachable). */
  drop(): void {
    if (this.leases.size > 0) this.leases.clear();
  }

  /** Gives back everything held (best effort) and stops the sweep. */
  async close(): Promise<void> {
    this.stopTimer();
    const held = [...this.leases.values()].filter((l) => l.tokens > 0);
    this.leases.clear();
    await Promise.all(held.map((l) => this.giveBack(l)));
  }

  private use(lease: Lease): LimitResult {
    lease.tokens -= 1;
    if (lease.size > 1 && lease.tokens <= lease.size / 2 && !lease.refill) this.startRefill(lease);
    const limit = this.limits[lease.cls];
    // Tokens held here were taken from the bucket's count: both together are what this key may still spend now.
    return { ok: true, limit: limit.perMinute, remaining: Math.min(limit.burst, lease.remote + lease.tokens), resetAt: lease.resetAt };
  }

  private async wait(id: string, cls: RateClass, key: string): Promise<LimitResult> {
    for (;;) {
      const lease = this.entry(id, cls, key);
      lease.waiting += 1;
      let got: Grant | Failed | null;
      try {
        got = await (lease.refill ?? this.startRefill(lease));
      } finally {
        lease.waiting -= 1;
      }
      if (got instanceof Failed) throw got.error;
      // Nothing to ask for means the lease already holds a token.
      if (got === null) return this.use(lease);
      if (lease.tokens > 0) return this.use(lease);
      if (got.granted === 0) return refused(this.limits[cls].perMinute, got);
      // The grant went to the checks resumed before this one: ask again, for everyone still waiting.
    }
  }

  /** The key's lease, created empty; one whose time is up gives its tokens back first. */
  private entry(id: string, cls: RateClass, key: string): Lease {
    const now = this.clock();
    let lease = this.leases.get(id);
    if (!lease) {
      lease = {
        cls,
        key,
        tokens: 0,
        size: 1,
        expiresAt: now + LEASE_MS,
        lastRefillAt: -Infinity,
        remote: 0,
        resetAt: now,
        refill: null,
        waiting: 0,
      };
      this.leases.set(id, lease);
      this.startTimer();
    } else if (lease.tokens > 0 && now >= lease.expiresAt && !lease.refill) {
      void this.giveBack({ ...lease });
      lease.tokens = 0;
    }
    return lease;
  }

  /** Sizes the next lease and asks Redis for it, once however many checks wait; null when nothing is needed. */
  private startRefill(lease: Lease): Promise<Grant | Failed> | null {
    const now = this.clock();
    const since = now - lease.lastRefillAt;
    if (since < GROW_MS) lease.size = Math.min(this.caps[lease.cls], lease.size * 2);
    else if (since > SHRINK_MS) lease.size = Math.max(1, Math.floor(lease.size / 2));
    lease.lastRefillAt = now;
    // Waiting checks each spend one at once; the lease keeps (size - 1) after them, or tops up to size.
    const want = Math.max(0, lease.size - lease.tokens) + Math.max(0, lease.waiting - 1);
    if (want === 0) return null;
    const refill = this.store.take(lease.cls, lease.key, want).then(
      (g) => {
        lease.refill = null;
        lease.tokens += g.granted;
        lease.remote = g.remaining;
        lease.resetAt = g.resetAt;
        if (g.granted > 0) lease.expiresAt = this.clock() + LEASE_MS;
        return g;
      },
      (err: unknown) => {
        lease.refill = null;
        this.onError(err);
        return new Failed(err);
      },
    );
    lease.refill = refill;
    return refill;
  }

  private giveBack(l: Pick<Lease, "cls" | "key" | "tokens">): Promise<void> {
    return this.store.give(l.cls, l.key, l.tokens).catch(() => undefined);
  }

  private startTimer(): void {
    if (this.timer || this.sweepEveryMs <= 0) return;
    this.timer = setInterval(() => void this.sweep(), this.sweepEveryMs);
    this.timer.unref?.();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** A grant of nothing as the limiter's refusal: when the bucket has a token again. */
export function refused(limit: number, g: Grant): LimitResult {
  return { ok: false, code: "rate_limit_exceeded", limit, remaining: 0, resetAt: g.resetAt, retryAfterMs: g.retryAfterMs };
}
