// The bandit: now and then the plan leads with a route other than the best, so that every eligible route is
// measured early and re-measured as its samples age. A route never measured, or whose samples have faded
// away, is tried first; otherwise Thompson sampling on the strategy's own score: each route's TTFT and
// throughput are drawn from their posteriors (wide when thin or old) and the draw's winner is tried. The
// HealthStore's budget caps explorations at `exploreShare` of the plans; strict `cost` never explores
// (prices are known), and a half-open route (a circuit probe) is never an exploration.
import { normalDraw } from "./estimates";
import type { HealthStore } from "./health";
import { COMPARATORS, rankedFigures, scoreCandidates, type Ranked } from "./rank";
import type { Candidate, Optimize, ScoreBreakdown } from "./types";

/** Below this much sample weight a route counts as unmeasured (≈ one sample, three half-lives ago). */
export const STALE_WEIGHT = 0.15;

function bestOf<T extends Ranked>(list: readonly T[], optimize: Optimize): number {
  const compare = COMPARATORS[optimize];
  let best = 0;
  for (let i = 1; i < list.length; i++) if (compare(list[i], list[best]) < 0) best = i;
  return best;
}

function figures(): ScoreBreakdown {
  return {
    cost: { value: 0, normalized: 0, weight: 0 },
    ttft: { value: 0, normalized: 0, weight: 0 },
    tps: { value: 0, normalized: 0, weight: 0 },
  };
}

/** The least-measured closed route, when one is below STALE_WEIGHT. */
function staleIndex(list: readonly Candidate[]): number {
  let pick = -1;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c.circuit !== "closed") continue;
    const w = c.estimate.outcomeSamples;
    if (w < STALE_WEIGHT && (pick < 0 || w < list[pick].estimate.outcomeSamples)) pick = i;
  }
  return pick;
}

/** One Thompson draw per route, ranked as the strategy ranks the estimates; -1 when the winner is half-open. */
function thompsonIndex(
  list: readonly Candidate[],
  optimize: Optimize,
  health: HealthStore,
  now: number,
  prefer: readonly string[],
): number {
  const random = health.random;
  const shadows: Ranked[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    const post = health.posteriors(c.routeKey, { ttftMs: c.route.ttftHintMs, tps: c.route.tpsHint }, now);
    const ttft = Math.exp(post.ttft.mu + post.ttft.muSd * normalDraw(random));
    const tps = Math.exp(post.tps.mu + post.tps.muSd * normalDraw(random));
    const shadow: Ranked = { breakdown: figures(), score: 0 };
    rankedFigures(shadow.breakdown, c.breakdown.cost.value, ttft, tps, c.estimate.successRate, prefer.includes(c.provider.id));
    // The cost figure already carries `prefer`: keep it as the candidate has it.
    shadow.breakdown.cost.value = c.breakdown.cost.value;
    shadows[i] = shadow;
  }
  scoreCandidates(shadows, optimize);
  const pick = bestOf(shadows, optimize);
  return list[pick].circuit === "closed" ? pick : -1;
}

/**
 * Marks and returns the route to lead the plan with for measurement, or null to exploit. `list` is scored
 * already (scoreCandidates); spends the budget only when the pick differs from the best.
 */
export function explorationPick(
  list: readonly Candidate[],
  optimize: Optimize,
  health: HealthStore,
  now: number,
  prefer: readonly string[],
): Candidate | null {
  if (optimize === "cost" || list.length < 2 || !health.canExplore()) return null;
  const best = bestOf(list, optimize);
  let pick = staleIndex(list);
  if (pick < 0) pick = thompsonIndex(list, optimize, health, now, prefer);
  if (pick < 0 || pick === best) return null;
  health.spendExploration();
  const c = list[pick];
  c.explored = true;
  return c;
}
