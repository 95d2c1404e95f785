// Live per-route health: moving averages of TTFT, throughput, latency and error rate, plus a
// circuit breaker. Keyed by `${provider}/${providerModelId}` (see routeKey()).
//
// The statistics are per instance: each gateway process measures what it sees and they are NOT
// shared across instances (even with REDIS_URL). That is deliberate — the figures steer ranking
// and trip breakers, where a local view is good enough and keeps the hot path free of I/O.
import type { RouteEntry } from "../catalog/types";

export type CircuitState = "closed" | "open" | "half_open";

export interface HealthOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** Cool-down before a half-open probe, when the upstream gave no Retry-After. */
  cooldownMs: number;
  /** Upper bound on a Retry-After-driven cool-down, so a bogus header cannot park a route for days. */
  maxCooldownMs: number;
  /** EWMA weight of the newest sample (0..1). */
  alpha: number;
  /** A probe that never reports back frees its slot after this long, so the route is not stuck. */
  probeLeaseMs: number;
  /**
   * A route attempted by two or more workspaces within this window is shared: its circuit opens only on a
   * streak of failures from more than one of them, so no tenant opens it for the others alone.
   */
  sharedWindowMs: number;
}

export const DEFAULT_HEALTH_OPTIONS: HealthOptions = {
  failureThreshold: 3,
  cooldownMs: 30_000,
  maxCooldownMs: 10 * 60_000,
  alpha: 0.25,
  probeLeaseMs: 60_000,
  sharedWindowMs: 60_000,
};

export interface SuccessSample {
  ttftMs?: number;
  tps?: number;
  latencyMs: number;
}

export interface FailureSample {
  /** From the provider's Retry-After: becomes the cool-down when this failure opens the circuit. */
  retryAfterMs?: number;
  /** The workspace whose attempt failed (absent: one anonymous workspace). */
  workspaceId?: string;
}

export interface RouteHealthSnapshot {
  key: string;
  state: CircuitState;
  ttftMs: number | null;
  tps: number | null;
  latencyMs: number | null;
  errorRate: number;
  successes: number;
  failures: number;
  consecutiveFailures: number;
  /** When an open circuit turns half-open (ms since epoch); null when closed. */
  openUntil: number | null;
  probeInFlight: boolean;
}

// Mutable record per route: updated in place so the hot path allocates nothing once warmed up.
interface RouteHealth {
  ttftMs: number; // NaN until measured
  tps: number; // NaN until measured
  latencyMs: number; // NaN until measured
  errorRate: number;
  successes: number;
  failures: number;
  consecutiveFailures: number;
  open: boolean;
  openUntil: number;
  /** 0 when no probe is in flight, else when its lease ends. */
  probeLeaseUntil: number;
  /**
   * The last workspace to attempt the route and the last one before it that differs, with when each was
   * seen: two distinct workspaces in the window exactly when the second was seen within it (O(1), no map).
   */
  lastWs: string | null;
  lastWsAt: number;
  otherWs: string | null;
  otherWsAt: number;
  /** The workspace whose failure began the current streak, and whether another has failed in it since. */
  streakWs: string | null;
  streakMulti: boolean;
}

export function routeKey(route: Pick<RouteEntry, "provider" | "providerModelId">): string {
  return `${route.provider}/${route.providerModelId}`;
}

function ewma(previous: number, sample: number, alpha: number): number {
  // The first sample replaces the prior outright: a hint is a guess, a measurement is not.
  return Number.isNaN(previous) ? sample : previous + alpha * (sample - previous);
}

export class HealthStore {
  private readonly routes = new Map<string, RouteHealth>();
  private readonly options: HealthOptions;

  constructor(options: Partial<HealthOptions> = {}) {
    this.options = { ...DEFAULT_HEALTH_OPTIONS, ...options };
  }

  recordSuccess(key: string, sample: SuccessSample, now: number): void {
    void now; // kept for symmetry with recordFailure and future time-decayed averages
    const h = this.entry(key);
    const { alpha } = this.options;
    if (sample.ttftMs !== undefined && Number.isFinite(sample.ttftMs) && sample.ttftMs >= 0) {
      h.ttftMs = ewma(h.ttftMs, sample.ttftMs, alpha);
    }
    if (sample.tps !== undefined && Number.isFinite(sample.tps) && sample.tps > 0) {
      h.tps = ewma(h.tps, sample.tps, alpha);
    }
    if (Number.isFinite(sample.latencyMs) && sample.latencyMs >= 0) {
      h.latencyMs = ewma(h.latencyMs, sample.latencyMs, alpha);
    }
    h.errorRate += alpha * (0 - h.errorRate);
    h.successes++;
    h.consecutiveFailures = 0;
    h.streakWs = null;
    h.streakMulti = false;
    h.open = false;
    h.openUntil = 0;
    h.probeLeaseUntil = 0;
  }

  recordFailure(key: string, sample: FailureSample, now: number): void {
    const h = this.entry(key);
    const { alpha, failureThreshold } = this.options;
    h.errorRate += alpha * (1 - h.errorRate);
    h.failures++;
    h.consecutiveFailures++;
    const ws = sample.workspaceId ?? "";
    if (h.consecutiveFailures === 1) h.streakWs = ws;
    else if (ws !== h.streakWs) h.streakMulti = true;
    const wasProbe = h.probeLeaseUntil !== 0;
    h.probeLeaseUntil = 0;
    // A failed probe reopens at once; otherwise the streak must reach the threshold, with failures from
    // more than one workspace on a shared route. Failures of requests that were in flight when the
    // circuit opened may only push the reopening later.
    const streak = h.consecutiveFailures >= failureThreshold && (h.streakMulti || !this.shared(h, now));
    if (wasProbe || h.open || streak) {
      const until = now + this.cooldown(sample.retryAfterMs);
      h.openUntil = h.open ? Math.max(h.openUntil, until) : until;
      h.open = true;
    }
  }

  /**
   * Frees a probe slot without a verdict, for an attempt that ended in neither a success nor an
   * upstream failure (client abort, a 400 that was the caller's fault).
   */
  releaseProbe(key: string): void {
    const h = this.routes.get(key);
    if (h !== undefined) h.probeLeaseUntil = 0;
  }

  state(key: string, now: number): CircuitState {
    const h = this.routes.get(key);
    if (h === undefined || !h.open) return "closed";
    return now < h.openUntil ? "open" : "half_open";
  }

  /** Whether an attempt on this route may start now, without taking the probe slot. */
  canAttempt(key: string, now: number): boolean {
    const h = this.routes.get(key);
    if (h === undefined || !h.open) return true;
    if (now < h.openUntil) return false;
    return h.probeLeaseUntil === 0 || now >= h.probeLeaseUntil;
  }

  /**
   * Call right before sending an attempt. Closed circuit: always true. Open: false. Half-open: true
   * for exactly one caller until that probe reports (recordSuccess/recordFailure/releaseProbe) or
   * its lease runs out.
   */
  tryAcquireProbe(key: string, now: number, workspaceId?: string): boolean {
    if (workspaceId !== undefined) this.noteUse(key, workspaceId, now);
    const h = this.routes.get(key);
    if (h === undefined || !h.open) return true;
    if (now < h.openUntil) return false;
    if (h.probeLeaseUntil !== 0 && now < h.probeLeaseUntil) return false;
    h.probeLeaseUntil = now + this.options.probeLeaseMs;
    return true;
  }

  /** Moving average of time to first token; the route's hint until the first measurement. */
  expectedTtftMs(route: RouteEntry): number {
    return this.expectedTtftFor(routeKey(route), route.ttftHintMs);
  }

  /** Moving average of output tokens per second; the route's hint until the first measurement. */
  expectedTps(route: RouteEntry): number {
    return this.expectedTpsFor(routeKey(route), route.tpsHint);
  }

  /** As expectedTtftMs, for callers that already hold the key (the planner, per request). */
  expectedTtftFor(key: string, hintMs: number): number {
    const h = this.routes.get(key);
    return h === undefined || Number.isNaN(h.ttftMs) ? hintMs : h.ttftMs;
  }

  expectedTpsFor(key: string, hint: number): number {
    const h = this.routes.get(key);
    return h === undefined || Number.isNaN(h.tps) ? hint : h.tps;
  }

  /** Every route seen so far, for debugging and metrics. */
  snapshot(now: number): RouteHealthSnapshot[] {
    const out: RouteHealthSnapshot[] = [];
    for (const [key, h] of this.routes) {
      out.push({
        key,
        state: this.state(key, now),
        ttftMs: Number.isNaN(h.ttftMs) ? null : h.ttftMs,
        tps: Number.isNaN(h.tps) ? null : h.tps,
        latencyMs: Number.isNaN(h.latencyMs) ? null : h.latencyMs,
        errorRate: h.errorRate,
        successes: h.successes,
        failures: h.failures,
        consecutiveFailures: h.consecutiveFailures,
        openUntil: h.open ? h.openUntil : null,
        probeInFlight: h.probeLeaseUntil !== 0 && now < h.probeLeaseUntil,
      });
    }
    return out;
  }

  /** Whether two or more workspaces attempted the route within the shared window. */
  private shared(h: RouteHealth, now: number): boolean {
    return h.otherWs !== null && now - h.otherWsAt < this.options.sharedWindowMs;
  }

  private noteUse(key: string, workspaceId: string, now: number): void {
    const h = this.entry(key);
    if (h.lastWs !== workspaceId) {
      h.otherWs = h.lastWs;
      h.otherWsAt = h.lastWsAt;
      h.lastWs = workspaceId;
    }
    h.lastWsAt = now;
  }

  private cooldown(retryAfterMs: number | undefined): number {
    if (retryAfterMs === undefined || !Number.isFinite(retryAfterMs) || retryAfterMs <= 0) {
      return this.options.cooldownMs;
    }
    return Math.min(retryAfterMs, this.options.maxCooldownMs);
  }

  private entry(key: string): RouteHealth {
    let h = this.routes.get(key);
    if (h === undefined) {
      h = {
        ttftMs: Number.NaN,
        tps: Number.NaN,
        latencyMs: Number.NaN,
        errorRate: 0,
        successes: 0,
        failures: 0,
        consecutiveFailures: 0,
        open: false,
        openUntil: 0,
        probeLeaseUntil: 0,
        lastWs: null,
        lastWsAt: 0,
        otherWs: null,
        otherWsAt: 0,
        streakWs: null,
        streakMulti: false,
      };
      this.routes.set(key, h);
    }
    return h;
  }
}
