import { describe, expect, test } from "bun:test";
import { isFull, takeTokens, type BucketConfig } from "../../../src/limits/token-bucket";

// 60 per minute: one token per second.
const cfg: BucketConfig = { capacity: 3, refillPerMs: 1 / 1000 };

describe("token bucket", () => {
  test("a new bucket is full; each take removes one until empty", () => {
    let s = takeTokens(cfg, undefined, 1, 0);
    expect(s).toMatchObject({ ok: true, remaining: 2, retryAfterMs: 0 });
    s = takeTokens(cfg, s.state, 1, 0);
    s = takeTokens(cfg, s.state, 1, 0);
    expect(s).toMatchObject({ ok: true, remaining: 0, resetAt: 3000 });
    const refused = takeTokens(cfg, s.state, 1, 0);
    expect(refused).toMatchObject({ ok: false, remaining: 0, retryAfterMs: 1000, resetAt: 3000 });
  });

  test("refills with time, capped at capacity, and retryAfter shrinks as time passes", () => {
    let s = takeTokens(cfg, { tokens: 0, updatedAt: 0 }, 1, 400);
    expect(s).toMatchObject({ ok: false, retryAfterMs: 600 });
    s = takeTokens(cfg, s.state, 1, 1000);
    expect(s).toMatchObject({ ok: true, remaining: 0 });
    const later = takeTokens(cfg, s.state, 1, 1_000_000);
    expect(later).toMatchObject({ ok: true, remaining: 2 });
    expect(isFull(cfg, s.state, 3999)).toBe(false);
    expect(isFull(cfg, s.state, 4000)).toBe(true);
  });

  test("a refused take does not consume tokens", () => {
    const s = takeTokens(cfg, { tokens: 0.5, updatedAt: 0 }, 1, 0);
    expect(s.ok).toBe(false);
    expect(s.state.tokens).toBe(0.5);
    expect(s.retryAfterMs).toBe(500);
  });

  test("a clock going backwards does not drain or overfill the bucket", () => {
    const s = takeTokens(cfg, { tokens: 1, updatedAt: 5000 }, 1, 4000);
    expect(s).toMatchObject({ ok: true, remaining: 0 });
    expect(s.state.updatedAt).toBe(5000);
  });
});
