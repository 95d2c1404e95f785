import { describe, expect, test } from "bun:test";
import { bucketConfig } from "../../../src/limits/classes";
import { leaseCap } from "../../../src/limits/token-lease";

const cap = (perMinute: number, burst = perMinute) => leaseCap(bucketConfig({ perMinute, burst }));

describe("lease cap", () => {
  test("limits up to 600 per minute are never leased: one token per call, as without leases", () => {
    for (const perMinute of [1, 5, 20, 60, 300, 600, 1_199]) expect(cap(perMinute)).toBe(1);
  });

  test("at most 100 ms of the refill rate, an eighth of the burst and 256 tokens", () => {
    expect(cap(1_200)).toBe(2);
    expect(cap(60_000)).toBe(100);
    expect(cap(10_000_000)).toBe(256);
    expect(cap(120_000, 600)).toBe(75);
    expect(cap(10_000_000, 10)).toBe(1);
  });
});
