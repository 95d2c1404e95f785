// Live per-route health: the router's estimates (estimates.ts: TTFT, throughput and success rate from
// time-decayed samples), a circuit breaker, and the exploration budget. Keyed by
// `${provider}/${providerModelId}` (see routeKey()).
//
// In shared mode every instance also applies its peers' samples (routing/redis-health-sync.ts), so the
// fleet learns as one; each instance ranks and trips its breakers from that common evidence locally, with
// no I/O on the hot path.
import type { RouteEntry } from "../catalog/types";
import {
  addLogSample,
  addOutcome,
  blankPosterior,
  CEILING_PRIOR_WEIGHT,
  DEFAULT_ESTIMATE_OPTIONS,
  emptyLogSums,
  emptyOutcomes,
  logPosterior,
  longRunOptions,
  steadyOptions,
  successRate,
  toEstimate,
  type LogPosterior,
  type LogSums,
  type OutcomeSums,
} from "./estimates";
import type { RouteEstimate } from "./types";

export type CircuitState = "closed" | "open" | "half_open";

/** A route's recent and long-run posteriors (what the bandit draws from). */
export interface RoutePosteriors {
  ttft: LogPosterior;
  tps: LogPosterior;
  ttftLong: LogPosterior;
  tpsLong: LogPosterior;
}

export const blankPosteriors = (): RoutePosteriors => ({
  ttft: blankPosterior(),
  tps: blankPosterior(),
  ttftLong: blankPosterior(),
  tpsLong: blankPosterior(),
});

export interface HealthOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** Cool-down before a half-open probe, when the upstream gave no Retry-After. */
  cooldownMs: number;
  /** Upper bound on a Retry-After-driven cool-down, so a bogus header cannot park a route for days. */
  maxCooldownMs: number;
  /** A sample's weight halves after this long, ms (config `routing.sample_half_life_s`). */
  halfLifeMs: number;
  /** Largest share of plans the bandit may lead with a route other than the best (config `routing.explore_share`). */
  exploreShare: number;
  /** Uniform [0, 1) source for the bandit's draws: seeded in benches and tests. */
  random: () => number;
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
  halfLifeMs: DEFAULT_ESTIMATE_OPTIONS.halfLifeMs,
  exploreShare: 0.05,
  random: Math.random,
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
  /** The upstream status (0: no answer) and the gateway's error code, for the health view. */
  status?: number;
  code?: string;
}

/** Told of every local sample (fleet sharing); must not block: it runs on the request's path. */
export interface HealthListener {
  success(key: string, sample: SuccessSample, now: number): void;
  failure(key: string, sample: FailureSample, now: number): void;
  firstToken(key: string, ttftMs: number, now: number): void;
}

/** A route's circuit and raw counts, for GET /v1/routing/health. */
export interface RouteHealthView {
  state: CircuitState;
  /** When an open circuit turns half-open (ms since epoch); null when closed. */
  openUntil: number | null;
  successes: number;
  failures: number;
  consecutiveFailures: number;
  lastFailureAt: number | null;
  lastFailureStatus: number | null;
  lastFailureCode: string | null;
  probeInFlight: boolean;
}

// Mutable record per route: updated in place so the hot path allocates nothing once warmed up.
interface RouteHealth {
  ttft: LogSums;
  tps: LogSums;
  /** The same figures over the route's longer history (the bandit's view of what a changed route may return to). */
  ttftLong: LogSums;
  tpsLong: LogSums;
  /** The steadier view the ceilings compare against (estimates.ts steadyOptions). */
  ttftSteady: LogSums;
  tpsSteady: LogSums;
  /** The last estimates computed, dropped by every sample (estimate() runs per route per request). */
  cached: CachedEstimate | null;
  cachedCeiling: CachedEstimate | null;
  /** Bumped by every sample: a cached estimate of an older version is stale. */
  version: number;
  outcomes: OutcomeSums;
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
  lastFailureAt: number;
  lastFailureStatus: number;
  lastFailureCode: string | null;
}

// One key string per catalog route, built once: the planner looks routes up on every request, and the same
// string object keeps its hash (a freshly concatenated one is hashed again on every lookup).
const KEYS = new WeakMap<object, string>();

export function routeKey(route: Pick<RouteEntry, "provider" | "providerModelId">): string {
  let key = KEYS.get(route);
  if (key === undefined) {
    key = `${route.provider}/${route.providerModelId}`;
    KEYS.set(route, key);
  }
  return key;
}

export class HealthStore {
  private readonly routes = new Map<string, RouteHealth>();
  private readonly options: HealthOptions;
  private readonly estimateOptions: typeof DEFAULT_ESTIMATE_OPTIONS;
  private readonly longOptions: typeof DEFAULT_ESTIMATE_OPTIONS;
  private readonly steadyOptions: typeof DEFAULT_ESTIMATE_OPTIONS;
  private listener: HealthListener | null = null;
  /** Scratch posteriors for estimateFor (read at once into the estimate). */
  private readonly scratchTtft = blankPosterior();
  private readonly scratchTps = blankPosterior();
  /** Exploration credit: grows by exploreShare per plan that could explore, spent one per exploration. */
  private credit = 0;

  constructor(options: Partial<HealthOptions> = {}) {
    this.options = { ...DEFAULT_HEALTH_OPTIONS, ...options };
    this.estimateOptions = { ...DEFAULT_ESTIMATE_OPTIONS, halfLifeMs: this.options.halfLifeMs };
    this.longOptions = longRunOptions(this.estimateOptions);
    this.steadyOptions = steadyOptions(this.estimateOptions);
  }

  /** The uniform source the bandit draws from. */
  get random(): () => number {
    return this.options.random;
  }

  setListener(listener: HealthListener | null): void {
    this.listener = listener;
  }

  /** `fromPeer`: another instance's sample (shared mode), applied without being told to the listener again. */
  recordSuccess(key: string, sample: SuccessSample, now: number, fromPeer = false): void {
    const h = this.touched(key);
    const o = this.estimateOptions;
    if (sample.ttftMs !== undefined && Number.isFinite(sample.ttftMs) && sample.ttftMs >= 0) this.addTtft(h, sample.ttftMs, now);
    if (sample.tps !== undefined && Number.isFinite(sample.tps) && sample.tps > 0) {
      const x = Math.log(sample.tps);
      addLogSample(h.tps, x, now, o, true);
      addLogSample(h.tpsLong, x, now, this.longOptions);
      addLogSample(h.tpsSteady, x, now, this.steadyOptions, true);
    }
    // A probe that closes an open circuit forgives the failures that opened it: the circuit answered for them.
    if (h.open) h.outcomes = emptyOutcomes();
    addOutcome(h.outcomes, true, now, o);
    h.successes++;
    h.consecutiveFailures = 0;
    h.streakWs = null;
    h.streakMulti = false;
    h.open = false;
    h.openUntil = 0;
    h.probeLeaseUntil = 0;
    if (!fromPeer && this.listener !== null) this.listener.success(key, sample, now);
  }

  /**
   * A stream's first token: its TTFT is a sample as soon as it is known (the attempt's outcome comes with
   * recordSuccess or recordFailure later), so a route that got slower is seen a whole generation earlier.
   */
  recordFirstToken(key: string, ttftMs: number, now: number, fromPeer = false): void {
    if (!Number.isFinite(ttftMs) || ttftMs < 0) return;
    this.addTtft(this.touched(key), ttftMs, now);
    if (!fromPeer && this.listener !== null) this.listener.firstToken(key, ttftMs, now);
  }

  recordFailure(key: string, sample: FailureSample, now: number, fromPeer = false): void {
    const h = this.touched(key);
    const { failureThreshold } = this.options;
    addOutcome(h.outcomes, false, now, this.estimateOptions);
    h.failures++;
    h.consecutiveFailures++;
    h.lastFailureAt = now;
    h.lastFailureStatus = sample.status ?? -1;
    h.lastFailureCode = sample.code ?? null;
    const ws = sample.workspaceId ?? "";
    if (h.consecutiveFailures === 1) h.streakWs = ws;
    else if (ws !== h.streakWs) h.streakMulti = true;
    const wasProbe = h.probeLeaseUntil !== 0;
    // A peer's failure never ends this instance's probe: the probe's own answer will.
    if (!fromPeer) h.probeLeaseUntil = 0;
    // A failed probe reopens at once; otherwise the streak must reach the threshold, with failures from
    // more than one workspace on a shared route. Failures of requests that were in flight when the
    // circuit opened may only push the reopening later.
    const streak = h.consecutiveFailures >= failureThreshold && (h.streakMulti || !this.shared(h, now));
    if ((wasProbe && !fromPeer) || h.open || streak) {
      const until = now + this.cooldown(sample.retryAfterMs);
      h.openUntil = h.open ? Math.max(h.openUntil, until) : until;
      h.open = true;
    }
    if (!fromPeer && this.listener !== null) this.listener.failure(key, sample, now);
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

  /** The route's estimates now: its measurements over its prior (route hints), faded by age. */
  estimate(key: string, prior: { ttftMs: number; tps: number }, now: number): RouteEstimate {
    return this.estimateFor(key, prior.ttftMs, prior.tps, now);
  }

  /** estimate() without the prior's object (the planner calls it per route per request). */
  estimateFor(key: string, ttftPrior: number, tpsPrior: number, now: number): RouteEstimate {
    const h = this.entry(key);
    const c = h.cached;
    // Kept until the next sample, or a second: the fade in a second is under 0.2 % of a weight.
    if (c !== null && c.version === h.version && fresh(c, ttftPrior, tpsPrior, now)) return c.estimate;
    const half = this.options.halfLifeMs;
    const ttft = logPosterior(h.ttft, ttftPrior, now, half, undefined, this.scratchTtft);
    const tps = logPosterior(h.tps, tpsPrior, now, half, undefined, this.scratchTps);
    const estimate = toEstimate(ttft, tps, successRate(h.outcomes, now, half));
    if (c === null) h.cached = { estimate, at: now, ttftPrior, tpsPrior, version: h.version };
    else {
      c.estimate = estimate;
      c.at = now;
      c.ttftPrior = ttftPrior;
      c.tpsPrior = tpsPrior;
      c.version = h.version;
    }
    return estimate;
  }

  /**
   * For the planner, in one lookup: -1 when no attempt may start (open, or half-open with its probe
   * taken), 1 when the attempt would be the half-open route's probe, 0 when the circuit is closed.
   */
  circuitFor(key: string, now: number): -1 | 0 | 1 {
    const h = this.routes.get(key);
    if (h === undefined || !h.open) return 0;
    if (now < h.openUntil) return -1;
    return h.probeLeaseUntil === 0 || now >= h.probeLeaseUntil ? 1 : -1;
  }

  /** The log-space posteriors behind estimate(), recent and long-run, for the bandit's draws (explore.ts). */
  posteriors(key: string, prior: { ttftMs: number; tps: number }, now: number, out?: RoutePosteriors): RoutePosteriors {
    const h = this.routes.get(key);
    const half = this.options.halfLifeMs;
    const long = this.longOptions.halfLifeMs;
    const o = out ?? blankPosteriors();
    logPosterior(h?.ttft ?? EMPTY_LOG, prior.ttftMs, now, half, undefined, o.ttft);
    logPosterior(h?.tps ?? EMPTY_LOG, prior.tps, now, half, undefined, o.tps);
    logPosterior(h?.ttftLong ?? EMPTY_LOG, prior.ttftMs, now, long, undefined, o.ttftLong);
    logPosterior(h?.tpsLong ?? EMPTY_LOG, prior.tps, now, long, undefined, o.tpsLong);
    return o;
  }

  /** The p50/p95 figures the ceilings compare against: the steadier view of the route's samples. */
  ceilingEstimate(key: string, prior: { ttftMs: number; tps: number }, now: number): RouteEstimate {
    const h = this.entry(key);
    const c = h.cachedCeiling;
    if (c !== null && c.version === h.version && fresh(c, prior.ttftMs, prior.tps, now)) return c.estimate;
    const half = this.steadyOptions.halfLifeMs;
    const ttft = logPosterior(h.ttftSteady, prior.ttftMs, now, half, CEILING_PRIOR_WEIGHT);
    const tps = logPosterior(h.tpsSteady, prior.tps, now, half, CEILING_PRIOR_WEIGHT);
    const estimate = toEstimate(ttft, tps, successRate(h.outcomes, now, this.options.halfLifeMs));
    h.cachedCeiling = { estimate, at: now, ttftPrior: prior.ttftMs, tpsPrior: prior.tps, version: h.version };
    return estimate;
  }

  private addTtft(h: RouteHealth, ttftMs: number, now: number): void {
    // A 0 ms first token (a cached answer, a clock step) is a very fast one, not a missing one.
    const ttft = Math.max(ttftMs, 1);
    const x = Math.log(ttft);
    addLogSample(h.ttft, x, now, this.estimateOptions, true);
    addLogSample(h.ttftLong, x, now, this.longOptions);
    addLogSample(h.ttftSteady, x, now, this.steadyOptions, true);
  }

  /** The sample half-life (the bandit scales its sense of "a while ago" by it). */
  get halfLifeMs(): number {
    return this.options.halfLifeMs;
  }

  /** Estimates from the route's own hints (ttftHintMs / tpsHint). */
  estimateRoute(route: RouteEntry, now: number): RouteEstimate {
    return this.estimate(routeKey(route), { ttftMs: route.ttftHintMs, tps: route.tpsHint }, now);
  }

  /** The circuit and raw counts of one route (a route never attempted is closed with zero counts). */
  view(key: string, now: number): RouteHealthView {
    const h = this.routes.get(key);
    const failed = h !== undefined && h.failures > 0;
    return {
      state: this.state(key, now),
      openUntil: h?.open ? h.openUntil : null,
      successes: h?.successes ?? 0,
      failures: h?.failures ?? 0,
      consecutiveFailures: h?.consecutiveFailures ?? 0,
      lastFailureAt: failed ? h.lastFailureAt : null,
      lastFailureStatus: failed && h.lastFailureStatus >= 0 ? h.lastFailureStatus : null,
      lastFailureCode: failed ? h.lastFailureCode : null,
      probeInFlight: h !== undefined && h.probeLeaseUntil !== 0 && now < h.probeLeaseUntil,
    };
  }

  /** Every route key seen so far. */
  keys(): IterableIterator<string> {
    return this.routes.keys();
  }

  /**
   * The exploration budget: each plan that could explore earns `exploreShare`; an exploration costs 1.
   * Credit is capped so a quiet spell cannot bank a burst, so explorations stay at most that share.
   */
  canExplore(): boolean {
    const share = this.options.exploreShare;
    if (!(share > 0)) return false;
    this.credit = Math.min(MAX_CREDIT, this.credit + share);
    return this.credit >= 1;
  }

  /** Spends `amount` of the credit: 1 for an exploration, less for draws that found nothing to explore. */
  spendExploration(amount: number): void {
    this.credit -= amount;
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

  /** The route's record with its cached estimates dropped: a sample is about to change them. */
  private touched(key: string): RouteHealth {
    const h = this.entry(key);
    // A new version makes the cached estimates stale (their records are reused by the next estimate).
    h.version = (h.version + 1) | 0;
    return h;
  }

  private entry(key: string): RouteHealth {
    let h = this.routes.get(key);
    if (h === undefined) {
      h = {
        ttft: emptyLogSums(),
        tps: emptyLogSums(),
        ttftLong: emptyLogSums(),
        tpsLong: emptyLogSums(),
        ttftSteady: emptyLogSums(),
        tpsSteady: emptyLogSums(),
        cached: null,
        cachedCeiling: null,
        version: 0,
        outcomes: emptyOutcomes(),
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
        lastFailureAt: 0,
        lastFailureStatus: -1,
        lastFailureCode: null,
      };
      this.routes.set(key, h);
    }
    return h;
  }
}

interface CachedEstimate {
  estimate: RouteEstimate;
  at: number;
  ttftPrior: number;
  tpsPrior: number;
  version: number;
}

/** How long a computed estimate stands without a new sample. */
const ESTIMATE_TTL_MS = 1_000;

function fresh(c: CachedEstimate, ttftPrior: number, tpsPrior: number, now: number): boolean {
  return now - c.at < ESTIMATE_TTL_MS && now >= c.at && c.ttftPrior === ttftPrior && c.tpsPrior === tpsPrior;
}

const EMPTY_LOG: LogSums = Object.freeze(emptyLogSums());
const EMPTY_OUTCOMES: OutcomeSums = Object.freeze(emptyOutcomes());
/** No credit is banked beyond one exploration: the share is a hard bound. */
const MAX_CREDIT = 1;
