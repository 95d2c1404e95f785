// Per-route estimates that follow the world: TTFT and throughput as log-normal figures, and the success
// rate, from decayed sums. Each new sample first fades the old ones by a factor per sample (so a route in
// use follows a change within a few requests) and by a half-life in time (so a route left unmeasured drifts
// back to its prior and to uncertainty, and the bandit re-tries it). The prior is a pseudo-sample.
import type { RouteEstimate } from "./types";

export interface EstimateOptions {
  /** A sample's weight halves after this long (ms). */
  halfLifeMs: number;
  /** Weight left to the older samples when a new one arrives: 0.9 ≈ the last ten samples. */
  sampleDecay: number;
  /** The same for attempt outcomes (success rate): slower, so one failure is not a verdict. */
  outcomeDecay: number;
}

export const DEFAULT_ESTIMATE_OPTIONS: EstimateOptions = { halfLifeMs: 600_000, sampleDecay: 0.9, outcomeDecay: 0.95 };

/** The long-run view of a route (its history, not its last few samples): what a changed route may return to. */
export function longRunOptions(o: EstimateOptions): EstimateOptions {
  return { halfLifeMs: o.halfLifeMs * 6, sampleDecay: 0.995, outcomeDecay: o.outcomeDecay };
}

/**
 * The steadier view the ceilings compare against (about the last fifty samples): one slow answer of a route
 * near a ceiling must not shut it out, while a real change still shows at once through the surprise test.
 */
/**
 * The prior's weight in the ceilings' view, in samples: a ceiling shuts a route out until its samples fade,
 * so it takes more than a couple of slow first answers to outweigh the route's hint.
 */
export const CEILING_PRIOR_WEIGHT = 2;

export function steadyOptions(o: EstimateOptions): EstimateOptions {
  return { halfLifeMs: o.halfLifeMs * 3, sampleDecay: 0.98, outcomeDecay: o.outcomeDecay };
}

/** A sample this many standard deviations from the recent mean is taken as a change: the old ones fade faster. */
const SURPRISE_SIGMAS = 3;
/** The smallest log-space spread the surprise test assumes (±15 %), so a steady route is not "surprised" by noise. */
const MIN_SURPRISE_SIGMA = 0.15;
/** Weight left to the older samples after a surprise (on top of the usual decay). */
const SURPRISE_DECAY = 0.2;
/** Beyond this many, the route is not what it was: the older samples keep only a hundredth of their weight. */
const SHOCK_SIGMAS = 5;
const SHOCK_DECAY = 0.01;

/** The prior's weight, in samples: small, so that measurements soon dominate it. */
const PRIOR_WEIGHT = 0.25;
/** Log-space spread assumed before the data says otherwise (≈ p95/p50 of 2.3). */
const PRIOR_SIGMA = 0.5;
/** Pseudo-successes behind the success rate: an unmeasured route is presumed reliable. */
const PRIOR_SUCCESSES = 2;
/** z of the 95th percentile of a normal. */
const Z95 = 1.645;

/** Decayed sums of a log-normal figure: weight, Σx, Σx² (x = ln value), and when they were last faded. */
export interface LogSums {
  w: number;
  m1: number;
  m2: number;
  at: number;
}

/** Decayed attempt outcomes: weight of all attempts and of the successful ones. */
export interface OutcomeSums {
  w: number;
  ok: number;
  at: number;
}

export const emptyLogSums = (): LogSums => ({ w: 0, m1: 0, m2: 0, at: 0 });
export const emptyOutcomes = (): OutcomeSums => ({ w: 0, ok: 0, at: 0 });

function timeFactor(at: number, now: number, halfLifeMs: number): number {
  return now > at ? Math.pow(2, -(now - at) / halfLifeMs) : 1;
}

/**
 * Adds one sample in place, `x` being the logarithm of the value (> 0). `detectChange`: a sample far outside the recent spread (a route that
 * just got much slower or faster) fades the older samples at once, so the estimate follows in a few samples.
 */
export function addLogSample(s: LogSums, x: number, now: number, o: EstimateOptions, detectChange = false): void {
  let f = s.w === 0 ? 0 : o.sampleDecay * timeFactor(s.at, now, o.halfLifeMs);
  if (detectChange && s.w >= 3) {
    const mean = s.m1 / s.w;
    const sd = Math.sqrt(Math.max(0, s.m2 / s.w - mean * mean));
    const z = Math.abs(x - mean) / (sd > MIN_SURPRISE_SIGMA ? sd : MIN_SURPRISE_SIGMA);
    if (z > SHOCK_SIGMAS) f *= SHOCK_DECAY;
    else if (z > SURPRISE_SIGMAS) f *= SURPRISE_DECAY;
  }
  s.w = s.w * f + 1;
  s.m1 = s.m1 * f + x;
  s.m2 = s.m2 * f + x * x;
  if (now > s.at) s.at = now;
}

export function addOutcome(s: OutcomeSums, success: boolean, now: number, o: EstimateOptions): void {
  const f = s.w === 0 ? 0 : o.outcomeDecay * timeFactor(s.at, now, o.halfLifeMs);
  s.w = s.w * f + 1;
  s.ok = s.ok * f + (success ? 1 : 0);
  if (now > s.at) s.at = now;
}

/** The log-space posterior of one figure: mean, spread of the figure, and uncertainty of the mean. */
export interface LogPosterior {
  /** When the figure was last sampled (0: never). */
  at: number;
  mu: number;
  sigma: number;
  /** Standard deviation of `mu` itself: wide when the data is thin or old (what the bandit samples). */
  muSd: number;
  /** Effective weight of the data now (after the time fade). */
  weight: number;
}

/** A blank posterior, for callers that fill one in place (logPosterior's `out`). */
export const blankPosterior = (): LogPosterior => ({ at: 0, mu: 0, sigma: 0, muSd: 0, weight: 0 });

export function logPosterior(
  s: LogSums,
  prior: number,
  now: number,
  halfLifeMs: number,
  priorWeight = PRIOR_WEIGHT,
  /** Filled and returned instead of a new object (the planner's per-request path allocates less). */
  out?: LogPosterior,
): LogPosterior {
  const f = s.w === 0 ? 0 : timeFactor(s.at, now, halfLifeMs);
  const w = s.w * f;
  const mu0 = Math.log(prior > 0 ? prior : 1);
  const k = priorWeight + w;
  const mu = (priorWeight * mu0 + s.m1 * f) / k;
  // Spread around the data's own mean, with the prior's spread as a pseudo-sample.
  const scatter = w > 0 ? Math.max(0, s.m2 * f - (s.m1 * f * s.m1 * f) / w) : 0;
  const sigma = Math.sqrt((priorWeight * PRIOR_SIGMA * PRIOR_SIGMA + scatter) / k);
  const muSd = sigma / Math.sqrt(k);
  if (out === undefined) return { at: s.at, mu, sigma, muSd, weight: w };
  out.at = s.at;
  out.mu = mu;
  out.sigma = sigma;
  out.muSd = muSd;
  out.weight = w;
  return out;
}

export function successRate(s: OutcomeSums, now: number, halfLifeMs: number): { rate: number; weight: number } {
  const f = s.w === 0 ? 0 : timeFactor(s.at, now, halfLifeMs);
  return { rate: (PRIOR_SUCCESSES + s.ok * f) / (PRIOR_SUCCESSES + s.w * f), weight: s.w * f };
}

/** The figures the planner ranks on and reports, from the two posteriors and the outcomes. */
export function toEstimate(ttft: LogPosterior, tps: LogPosterior, outcomes: { rate: number; weight: number }): RouteEstimate {
  return {
    ttftP50Ms: Math.exp(ttft.mu),
    ttftP95Ms: Math.exp(ttft.mu + Z95 * ttft.sigma),
    tpsP50: Math.exp(tps.mu),
    tpsP95: Math.exp(tps.mu - Z95 * tps.sigma),
    successRate: outcomes.rate,
    ttftSamples: ttft.weight,
    tpsSamples: tps.weight,
    outcomeSamples: outcomes.weight,
  };
}

/** One draw of a standard normal (Box–Muller), from the injected uniform source. */
export function normalDraw(random: () => number): number {
  const u = 1 - random(); // (0, 1]: log(0) never happens
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
