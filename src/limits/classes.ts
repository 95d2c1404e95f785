// Rate classes (docs/contract.md "Rate limits, credits and budgets") and their default limits. The config file's `limits` overrides any class:
// { "inference": { "per_minute": 600, "burst": 100 } }. `burst` is the bucket's capacity (default:
// per_minute, i.e. a full minute's allowance may be spent at once); it refills at per_minute / 60 s.
//
// | class             | key                | default    |
// |-------------------|--------------------|------------|
// | inference         | API key            | 600 / min  |
// | discovery         | client address     | 300 / min  |
// | management_reads  | API key            | 300 / min  |
// | management_writes | API key            | 60 / min   |
// | key_creation      | workspace          | 20 / min   |
//
// A key the instance has not verified (unknown, malformed or absent) takes from its client address's
// bucket of the same class instead (src/http/rate-limit.ts).
import type { FileConfig } from "../config/schema";
import type { BucketConfig } from "./token-bucket";

export const RATE_CLASSES = ["inference", "discovery", "management_reads", "management_writes", "key_creation"] as const;
export type RateClass = (typeof RATE_CLASSES)[number];

export interface ClassLimit {
  perMinute: number;
  burst: number;
}

export const DEFAULT_LIMITS: Readonly<Record<RateClass, ClassLimit>> = {
  inference: { perMinute: 600, burst: 600 },
  discovery: { perMinute: 300, burst: 300 },
  management_reads: { perMinute: 300, burst: 300 },
  management_writes: { perMinute: 60, burst: 60 },
  key_creation: { perMinute: 20, burst: 20 },
};

export type LimitTable = Readonly<Record<RateClass, ClassLimit>>;

/** Defaults with the config file's overrides applied. */
export function resolveLimits(overrides: FileConfig["limits"] = {}): LimitTable {
  const out = {} as Record<RateClass, ClassLimit>;
  for (const cls of RATE_CLASSES) {
    const o = overrides?.[cls];
    const perMinute = o?.per_minute ?? DEFAULT_LIMITS[cls].perMinute;
    out[cls] = { perMinute, burst: o?.burst ?? (o ? perMinute : DEFAULT_LIMITS[cls].burst) };
  }
  return out;
}

export function bucketConfig(limit: ClassLimit): BucketConfig {
  return { capacity: limit.burst, refillPerMs: limit.perMinute / 60_000 };
}
