// Token bucket arithmetic, pure: no clock, no storage. A bucket holds up to `capacity` tokens and gains
// `refillPerMs` tokens per millisecond; each request takes one (or n). Stores (memory, Redis) keep the
// two-number state and call takeTokens with their own time.

export interface BucketConfig {
  capacity: number;
  refillPerMs: number;
}

export interface BucketState {
  tokens: number;
  /** Epoch ms the token count was computed at. */
  updatedAt: number;
}

export interface TakeResult {
  ok: boolean;
  /** Whole tokens left after this take (0 when refused). */
  remaining: number;
  /** Epoch ms when the bucket will be full again if nothing more is taken. */
  resetAt: number;
  /** 0 when ok; else ms until n tokens are available. */
  retryAfterMs: number;
  state: BucketState;
}

/** The state at `now`: tokens accrued since updatedAt, capped at capacity. A new bucket starts full. */
export function refill(cfg: BucketConfig, state: BucketState | undefined, now: number): BucketState {
  if (!state) return { tokens: cfg.capacity, updatedAt: now };
  // A clock that went backwards must not drain the bucket.
  const elapsed = Math.max(0, now - state.updatedAt);
  return { tokens: Math.min(cfg.capacity, state.tokens + elapsed * cfg.refillPerMs), updatedAt: Math.max(now, state.updatedAt) };
}

export function takeTokens(cfg: BucketConfig, state: BucketState | undefined, n: number, now: number): TakeResult {
  const cur = refill(cfg, state, now);
  if (cur.tokens >= n) {
    const next = { tokens: cur.tokens - n, updatedAt: cur.updatedAt };
    return { ok: true, remaining: Math.floor(next.tokens), resetAt: fullAt(cfg, next), retryAfterMs: 0, state: next };
  }
  // More than capacity can never be taken at once: report the time to a full bucket.
  const missing = Math.min(n, cfg.capacity) - cur.tokens;
  return {
    ok: false,
    remaining: 0,
    resetAt: fullAt(cfg, cur),
    retryAfterMs: Math.max(1, Math.ceil(missing / cfg.refillPerMs)),
    state: cur,
  };
}

/** True when the bucket has refilled completely: forgetting it then changes nothing. */
export function isFull(cfg: BucketConfig, state: BucketState, now: number): boolean {
  return refill(cfg, state, now).tokens >= cfg.capacity;
}

function fullAt(cfg: BucketConfig, s: BucketState): number {
  return s.updatedAt + Math.ceil((cfg.capacity - s.tokens) / cfg.refillPerMs);
}
