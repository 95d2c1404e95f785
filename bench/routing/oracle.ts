// The oracle: the route the strategy's own scoring would pick if it knew the true medians, among the
// routes that truly meet the ceilings and are not failing now. It ranks with the planner's own
// rankCandidates, so the router and the oracle share one definition of "best".
import type { RouteEntry } from "../../src/catalog/types";
import { routeKey } from "../../src/routing/health";
import { rankCandidates } from "../../src/routing/rank";
import type { Candidate } from "../../src/routing/types";
import { blended, truthOf, type Market, type Profile, type World } from "./market";
import type { Scenario } from "./scenarios";

export interface OracleChoice {
  provider: string;
  profile: Profile;
  price: number;
  /** The strategy's score (0..1) of every route that truly qualifies now, on the true figures; the others score 0. */
  scores: ReadonlyMap<string, number>;
}

/** Whether the route's true figures at this moment break one of the scenario's ceilings. */
export function breaksCeiling(s: Scenario, price: number, profile: Profile): boolean {
  if (s.maxCostPer1m !== undefined && price > s.maxCostPer1m) return true;
  return s.maxTtftMs !== undefined && profile.ttftMs > s.maxTtftMs;
}

function trueCandidate(market: Market, route: RouteEntry, profile: Profile, price: number): Candidate {
  const provider = market.providers.get(route.provider)!;
  return {
    model: market.model,
    route,
    provider,
    routeKey: routeKey(route),
    keySource: "platform",
    estimate: {
      ttftP50Ms: profile.ttftMs,
      ttftP95Ms: profile.ttftMs * Math.exp(1.645 * profile.ttftSigma),
      tpsP50: profile.tps,
      tpsP95: profile.tps * Math.exp(-1.645 * profile.tpsSigma),
      successRate: 1,
      ttftSamples: Infinity,
      tpsSamples: Infinity,
      outcomeSamples: Infinity,
    },
    explored: false,
    sticky: false,
    circuit: "closed",
    score: 0,
    breakdown: {
      cost: { value: price, normalized: 0, weight: 0 },
      ttft: { value: profile.ttftMs, normalized: 0, weight: 0 },
      tps: { value: profile.tps, normalized: 0, weight: 0 },
    },
  };
}

/** The oracle's route for a request arriving at `t`, or null when no route truly qualifies. */
export function oracleChoice(s: Scenario, market: Market, world: World, t: number): OracleChoice | null {
  const list: Candidate[] = [];
  for (const route of market.model.routes) {
    if (world.failure(route.provider, t) !== null) continue;
    const profile = world.profile(route.provider, t);
    const price = blended(truthOf(route.provider));
    if (breaksCeiling(s, price, profile)) continue;
    list.push(trueCandidate(market, route, profile, price));
  }
  const best = rankCandidates(list, s.optimize, 1)[0];
  if (best === undefined) return null;
  const scores = new Map(list.map((c) => [c.route.provider, c.score]));
  return { provider: best.route.provider, profile: world.profile(best.route.provider, t), price: best.breakdown.cost.value, scores };
}
