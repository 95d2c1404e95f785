import { expect, test } from "bun:test";
import { bucketConfig, DEFAULT_LIMITS, resolveLimits } from "../../../src/limits/classes";

test("defaults apply where the config file is silent; overrides replace per class", () => {
  const l = resolveLimits({ inference: { per_minute: 1200 }, key_creation: { per_minute: 5, burst: 2 } });
  expect(l.inference).toEqual({ perMinute: 1200, burst: 1200 });
  expect(l.key_creation).toEqual({ perMinute: 5, burst: 2 });
  expect(l.discovery).toEqual(DEFAULT_LIMITS.discovery);
  expect(resolveLimits(undefined)).toEqual(DEFAULT_LIMITS);
  expect(DEFAULT_LIMITS).toMatchObject({
    inference: { perMinute: 600 },
    discovery: { perMinute: 300 },
    management_reads: { perMinute: 300 },
    management_writes: { perMinute: 60 },
    key_creation: { perMinute: 20 },
  });
});

test("bucket: capacity is the burst, refill is per_minute spread over the minute", () => {
  expect(bucketConfig({ perMinute: 600, burst: 50 })).toEqual({ capacity: 50, refillPerMs: 0.01 });
});
