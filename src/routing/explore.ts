// The bandit: now and then the plan leads with a route other than the best, so that every eligible route is
// measured early and re-measured as its samples age. A route never measured, or whose samples have faded
// away, is tried first; otherwise Thompson sampling on the strategy's own score: each route's TTFT and
// throughput are drawn from their posteriors (wide when thin or old) and the draw's winner is tried. The
// draw of a route not sampled for a while may come from its long-run history (it may have recovered). The
// HealthStore's budget caps explorations at `exploreShare` of the plans; strict `cost` never explores
// (prices are known), and a half-open route (a circuit probe) is never an exploration.
import { normalDraw } from "./estimates";
import { blankPosteriors, type HealthStore, type RoutePosteriors } from "./health";
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

/** Draws per plan while the budget allows an exploration. */
const DRAWS = 3;
/** Credit a plan whose draws all agreed with the ranking gives up: half an exploration, ten plans at 5 %. */
const AGREEMENT_COST = 0.5;

/** How soon an unsampled route may have changed: a thousandth of the sample half-life (0.6 s by default). */
const CHANGE_FRACTION = 0.001;

function changeChance(at: number, now: number, halfLifeMs: number): number {
  if (at === 0 || now <= at) return 0;
  return 1 - Math.exp(-(now - at) / (halfLifeMs * CHANGE_FRACTION));
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

/** What the draws need of each route, read once per plan: its posteriors and the chance it changed. */
interface DrawBasis {
  post: RoutePosteriors;
  ttftChange: number;
  tpsChange: number;
  shadow: Ranked;
}

// Reused from plan to plan (planning is synchronous): the draws allocate nothing once warmed up.
const POOL: DrawBasis[] = [];
const SHADOWS: Ranked[] = [];

function drawBasis(list: readonly Candidate[], health: HealthStore, now: number): DrawBasis[] {
  while (POOL.length < list.length)
    POOL.push({ post: blankPosteriors(), ttftChange: 0, tpsChange: 0, shadow: { breakdown: figures(), score: 0 } });
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    const b = POOL[i];
    health.posteriors(c.routeKey, { ttftMs: c.route.ttftHintMs, tps: c.route.tpsHint }, now, b.post);
    b.ttftChange = changeChance(b.post.ttft.at, now, health.halfLifeMs);
    b.tpsChange = changeChance(b.post.tps.at, now, health.halfLifeMs);
  }
  return POOL;
}

/** One Thompson draw per route, ranked as the strategy ranks the estimates; -1 when the winner is half-open. */
function thompsonIndex(
  list: readonly Candidate[],
  basis: DrawBasis[],
  optimize: Optimize,
  random: () => number,
  prefer: readonly string[],
): number {
  const shadows = SHADOWS;
  shadows.length = list.length;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    const { post, shadow } = basis[i];
    // A route not sampled for a while may have changed back: with a chance that grows with the time since
    // its last sample, its draw comes from its long-run history instead of its recent samples.
    const ttftPost = random() < basis[i].ttftChange ? post.ttftLong : post.ttft;
    const tpsPost = random() < basis[i].tpsChange ? post.tpsLong : post.tps;
    const ttft = Math.exp(ttftPost.mu + ttftPost.muSd * normalDraw(random));
    const tps = Math.exp(tpsPost.mu + tpsPost.muSd * normalDraw(random));
    const reliability = c.circuit === "closed" ? c.estimate.successRate : 1;
    rankedFigures(shadow.breakdown, 0, ttft, tps, reliability, prefer.includes(c.provider.id));
    // The cost figure is known: the candidate's own (it already carries `prefer`).
    shadow.breakdown.cost.value = c.breakdown.cost.value;
    shadows[i] = shadow;
  }
  scoreCandidates(shadows, optimize);
  const pick = bestOf(shadows, optimize);
  return list[pick].circuit === "closed" ? pick : -1;
}

/**
 * Marks and returns the route to lead the plan with for measurement, or null to exploit. Called when the
 * budget allows an exploration (health.canExplore()), with `list` scored already (scoreCandidates); spends a
 * whole exploration's credit only when the pick differs from the best.
 */
export function explorationPick(
  list: readonly Candidate[],
  optimize: Optimize,
  health: HealthStore,
  now: number,
  prefer: readonly string[],
): Candidate | null {
  if (optimize === "cost" || list.length < 2) return null;
  const best = bestOf(list, optimize);
  let pick = staleIndex(list);
  if (pick < 0 || pick === best) {
    // Up to DRAWS Thompson draws: a budget that is there is spent on the likeliest challengers, not banked.
    const basis = drawBasis(list, health, now);
    for (let d = 0; d < DRAWS && (pick < 0 || pick === best); d++) pick = thompsonIndex(list, basis, optimize, health.random, prefer);
  }
  if (pick < 0 || pick === best) {
    // The draws agreed with the ranking: wait a few plans before drawing again (the draws are the dear part).
    health.spendExploration(AGREEMENT_COST);
    return null;
  }
  health.spendExploration(1);
  const c = list[pick];
  c.explored = true;
  return c;
}
