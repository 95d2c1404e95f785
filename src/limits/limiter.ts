// The rate limiter seam. check() is synchronous for the memory store and may return a promise for a
// shared (Redis) store; callers `await` it either way.
import type { RateClass } from "./classes";

export type LimitResult =
  | { ok: true; limit: number; remaining: number; resetAt: number }
  | { ok: false; code: "rate_limit_exceeded"; limit: number; remaining: 0; resetAt: number; retryAfterMs: number };

export interface RateLimiter {
  /** Takes one token from the bucket of (class, key), e.g. ("inference", apiKeyId) or ("discovery", clientAddress). */
  check(cls: RateClass, key: string, now?: number): LimitResult | Promise<LimitResult>;
}

/** X-RateLimit-* values (gateway-api §8); the reset is an ISO 8601 date-time (docs/contract.md "Rate limits, credits and budgets"). */
export function rateLimitHeaders(r: LimitResult): Record<string, string> {
  return {
    "X-RateLimit-Limit-Requests": String(r.limit),
    "X-RateLimit-Remaining-Requests": String(r.remaining),
    "X-RateLimit-Reset-Requests": resetIso(r.resetAt),
  };
}

// The reset time is shown to the second (rounded up, so it is never early); formatting a date on every
// request is measurable, and consecutive requests share the same second.
let lastSecond = 0;
let lastIso = "";
function resetIso(resetAt: number): string {
  const second = Math.ceil(resetAt / 1000) * 1000;
  if (second !== lastSecond) {
    lastSecond = second;
    lastIso = new Date(second).toISOString();
  }
  return lastIso;
}

/** Whole seconds for Retry-After, at least 1. */
export function retryAfterSeconds(r: Extract<LimitResult, { ok: false }>): number {
  return Math.max(1, Math.ceil(r.retryAfterMs / 1000));
}
