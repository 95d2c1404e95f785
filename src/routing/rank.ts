// Scoring and ordering of candidates (docs/contract.md "Routing"). Figures are min-max normalised across the
// candidates ranked together so that 1 is best and 0 worst (cost and TTFT: lower is better; TPS:
// higher is better). Strict strategies order by one figure and break ties with the others;
// `*-focus` weighs 70 % on its figure and 15 % on each other; `balanced` weighs them equally.
import type { Factor, Optimize, ScoreBreakdown } from "./types";

/** What ranking reads of a candidate (the planner's candidates, or the bandit's drawn shadows of them). */
export interface Ranked {
  breakdown: ScoreBreakdown;
  score: number;
}

/** A preferred provider's figures count 10 % better: it leads when it is within about 10 % of the best. */
export const PREFER_FACTOR = 0.9;
/** Below this success rate a route's figures stop getting worse: it is the circuit's job by then. */
const MIN_RELIABILITY = 0.2;

/**
 * The figures a route is ranked on, from its estimates: TTFT and throughput count the retries its recent
 * failures cost (TTFT ÷ success rate, throughput × success rate), and `prefer` improves all three.
 */
export function rankedFigures(
  out: ScoreBreakdown,
  price: number,
  ttftMs: number,
  tps: number,
  successRate: number,
  preferred: boolean,
): void {
  const rel = successRate > MIN_RELIABILITY ? successRate : MIN_RELIABILITY;
  const p = preferred ? PREFER_FACTOR : 1;
  out.cost.value = price * p;
  out.ttft.value = (ttftMs / rel) * p;
  out.tps.value = (tps * rel) / p;
}

type Weights = Readonly<Record<Factor, number>>;

const STRICT_COST: Weights = { cost: 1, ttft: 0, tps: 0 };
const STRICT_TTFT: Weights = { cost: 0, ttft: 1, tps: 0 };
const STRICT_TPS: Weights = { cost: 0, ttft: 0, tps: 1 };

export const STRATEGY_WEIGHTS: Readonly<Record<Optimize, Weights>> = {
  cost: STRICT_COST,
  ttft: STRICT_TTFT,
  tps: STRICT_TPS,
  "cost-focus": { cost: 0.7, ttft: 0.15, tps: 0.15 },
  "ttft-focus": { cost: 0.15, ttft: 0.7, tps: 0.15 },
  "tps-focus": { cost: 0.15, ttft: 0.15, tps: 0.7 },
  balanced: { cost: 1 / 3, ttft: 1 / 3, tps: 1 / 3 },
};

// Module-level comparators: no closure is built per request. Array.prototype.sort is stable, so
// candidates equal on every figure keep their catalog order (model order, then route order).
function byCost(a: Ranked, b: Ranked): number {
  const bd = a.breakdown;
  const be = b.breakdown;
  return bd.cost.value - be.cost.value || bd.ttft.value - be.ttft.value || be.tps.value - bd.tps.value;
}

function byTtft(a: Ranked, b: Ranked): number {
  const bd = a.breakdown;
  const be = b.breakdown;
  return bd.ttft.value - be.ttft.value || bd.cost.value - be.cost.value || be.tps.value - bd.tps.value;
}

function byTps(a: Ranked, b: Ranked): number {
  const bd = a.breakdown;
  const be = b.breakdown;
  return be.tps.value - bd.tps.value || bd.cost.value - be.cost.value || bd.ttft.value - be.ttft.value;
}

function byScore(a: Ranked, b: Ranked): number {
  return b.score - a.score || byCost(a, b);
}

export const COMPARATORS: Readonly<Record<Optimize, (a: Ranked, b: Ranked) => number>> = {
  cost: byCost,
  ttft: byTtft,
  tps: byTps,
  "cost-focus": byScore,
  "ttft-focus": byScore,
  "tps-focus": byScore,
  balanced: byScore,
};

function normalise(value: number, min: number, max: number, higherIsBetter: boolean): number {
  const span = max - min;
  // Every candidate equal on this figure (or just one candidate): all are equally the best.
  if (!(span > 0)) return 1;
  return higherIsBetter ? (value - min) / span : (max - value) / span;
}

/** Fills each candidate's normalised figures, weights and score, in place. */
export function scoreCandidates(list: readonly Ranked[], optimize: Optimize): void {
  let minCost = Infinity;
  let maxCost = -Infinity;
  let minTtft = Infinity;
  let maxTtft = -Infinity;
  let minTps = Infinity;
  let maxTps = -Infinity;
  for (let i = 0; i < list.length; i++) {
    const b = list[i].breakdown;
    if (b.cost.value < minCost) minCost = b.cost.value;
    if (b.cost.value > maxCost) maxCost = b.cost.value;
    if (b.ttft.value < minTtft) minTtft = b.ttft.value;
    if (b.ttft.value > maxTtft) maxTtft = b.ttft.value;
    if (b.tps.value < minTps) minTps = b.tps.value;
    if (b.tps.value > maxTps) maxTps = b.tps.value;
  }
  const w = STRATEGY_WEIGHTS[optimize];
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    const b = c.breakdown;
    b.cost.normalized = normalise(b.cost.value, minCost, maxCost, false);
    b.ttft.normalized = normalise(b.ttft.value, minTtft, maxTtft, false);
    b.tps.normalized = normalise(b.tps.value, minTps, maxTps, true);
    b.cost.weight = w.cost;
    b.ttft.weight = w.ttft;
    b.tps.weight = w.tps;
    c.score = w.cost * b.cost.normalized + w.ttft * b.ttft.normalized + w.tps * b.tps.normalized;
  }
}

/**
 * Scores `list` and returns its best `limit` candidates, best first. Reorders `list` in place
 * (it is the planner's scratch array). A single pick is a linear scan rather than a sort.
 */
export function rankCandidates<T extends Ranked>(list: T[], optimize: Optimize, limit: number): T[] {
  if (list.length === 0 || limit <= 0) return [];
  scoreCandidates(list, optimize);
  const compare = COMPARATORS[optimize];
  if (limit === 1) {
    let best = list[0];
    for (let i = 1; i < list.length; i++) if (compare(list[i], best) < 0) best = list[i];
    return [best];
  }
  list.sort(compare);
  if (list.length > limit) list.length = limit;
  return list;
}
