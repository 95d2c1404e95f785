import { describe, expect, test } from "bun:test";
import { resolveLimits } from "../../../src/limits/classes";
import { rateLimitHeaders, retryAfterSeconds } from "../../../src/limits/limiter";
import { MemoryRateLimiter } from "../../../src/limits/memory-store";

const limits = resolveLimits({ inference: { per_minute: 2 }, discovery: { per_minute: 60, burst: 1 } });

describe("MemoryRateLimiter", () => {
  test("limits per class and key, then refuses with retryAfter", () => {
    const rl = new MemoryRateLimiter(limits, { now: () => 0 });
    expect(rl.check("inference", "k1", 0)).toMatchObject({ ok: true, limit: 2, remaining: 1 });
    expect(rl.check("inference", "k1", 0)).toMatchObject({ ok: true, remaining: 0 });
    const refused = rl.check("inference", "k1", 0);
    expect(refused).toMatchObject({ ok: false, code: "rate_limit_exceeded", retryAfterMs: 30_000 });
    if (!refused.ok) expect(retryAfterSeconds(refused)).toBe(30);
    // Another key and another class have their own buckets.
    expect(rl.check("inference", "k2", 0).ok).toBe(true);
    expect(rl.check("management_reads", "k1", 0).ok).toBe(true);
    // Half a minute later one token is back.
    expect(rl.check("inference", "k1", 30_000).ok).toBe(true);
  });

  test("burst sets the capacity, per_minute the refill", () => {
    const rl = new MemoryRateLimiter(limits, { now: () => 0 });
    expect(rl.check("discovery", "1.2.3.4", 0).ok).toBe(true);
    expect(rl.check("discovery", "1.2.3.4", 0).ok).toBe(false);
    expect(rl.check("discovery", "1.2.3.4", 1000).ok).toBe(true);
  });

  test("idle full buckets are evicted, so memory stays bounded", () => {
    let now = 0;
    const rl = new MemoryRateLimiter(limits, { sweepIntervalMs: 1000, now: () => now });
    for (let i = 0; i < 500; i++) rl.check("inference", `key-${i}`, now);
    expect(rl.size()).toBe(500);
    now = 60_000; // everyone has refilled
    rl.check("inference", "fresh", now);
    expect(rl.size()).toBe(1);
  });

  test("a bucket still refilling is kept by the sweep", () => {
    let now = 0;
    const rl = new MemoryRateLimiter(limits, { sweepIntervalMs: 1000, now: () => now });
    rl.check("inference", "busy", 0);
    rl.check("inference", "busy", 0);
    now = 2000;
    rl.sweep(now);
    expect(rl.size()).toBe(1);
    expect(rl.check("inference", "busy", now).ok).toBe(false);
  });

  test("headers: limit, remaining and an ISO 8601 reset time", () => {
    const rl = new MemoryRateLimiter(limits, { now: () => 0 });
    const r = rl.check("inference", "k", Date.UTC(2026, 0, 1));
    expect(rateLimitHeaders(r)).toEqual({
      "X-RateLimit-Limit-Requests": "2",
      "X-RateLimit-Remaining-Requests": "1",
      "X-RateLimit-Reset-Requests": "2026-01-01T00:00:30.000Z",
    });
  });
});
