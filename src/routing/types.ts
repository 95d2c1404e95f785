// The routing vocabulary shared by the planner, the request pipeline and the routing-defaults
// endpoints. Plain data only: the planner is pure and runs on every request.
import type { DataPolicy, ModelEntry, ProviderEntry, RouteEntry } from "../catalog/types";

export const OPTIMIZE_STRATEGIES = ["cost", "cost-focus", "ttft", "ttft-focus", "tps", "tps-focus", "balanced"] as const;
export type Optimize = (typeof OPTIMIZE_STRATEGIES)[number];

export type RoutingMode = "pool" | "fallback";

/** The three figures a route is ranked by. */
export type Factor = "cost" | "ttft" | "tps";

/** Fully resolved per-request options (request fields over workspace defaults over built-in defaults). */
export interface RoutingOptions {
  mode: RoutingMode;
  optimize: Optimize;
  /** Ceiling on the blended price (input+output)/2, USD per 1M tokens. */
  maxCostPer1m?: number;
  /** Ceiling on the route's expected time to first token, ms. */
  maxTtftMs?: number;
}

/** What a request may set in `gateway.routing` (all optional; absent fields fall back to defaults). */
export type RequestRouting = Partial<RoutingOptions>;

/** A workspace's stored routing defaults (CONTRACT §2.9); absent fields take the built-in defaults. */
export interface WorkspaceRoutingDefaults {
  optimize?: Optimize;
  data_policy?: DataPolicy;
  allow_fallbacks?: boolean;
  /** 1 to 19: further attempts after the first. */
  max_fallback_attempts?: number;
  /** Allow-list of provider IDs; empty or absent means every provider. */
  providers?: string[];
  exclude_providers?: string[];
}

/** The effective value of every routing default (what GET routing-defaults reports). */
export type EffectiveRoutingDefaults = Required<WorkspaceRoutingDefaults>;

export interface FactorBreakdown {
  /** Raw figure: blended USD per 1M tokens (cost), expected ms (ttft), expected tokens/s (tps). */
  value: number;
  /** Min-max normalised across the candidates ranked together; 1 is best, 0 is worst. */
  normalized: number;
  /** Weight of this factor in the score (strict strategies: 1 on the figure, 0 on the others). */
  weight: number;
}

export type ScoreBreakdown = Record<Factor, FactorBreakdown>;

export interface Candidate {
  model: ModelEntry;
  route: RouteEntry;
  provider: ProviderEntry;
  /** `${provider}/${providerModelId}`: the HealthStore key. */
  routeKey: string;
  /**
   * `half_open` means the attempt is a circuit probe: the pipeline must win
   * `health.tryAcquireProbe(routeKey, now)` before sending it (and skip the candidate otherwise).
   */
  circuit: "closed" | "half_open";
  /** Weighted sum of the normalised figures, 0..1, higher is better. */
  score: number;
  breakdown: ScoreBreakdown;
}

export type NoEligibleConstraint = "providers" | "exclude_providers" | "data_policy" | "max_cost_per_1m" | "max_ttft_ms";

export type RoutePlan =
  | {
      ok: true;
      /** Ordered attempt plan: the first is tried first; the rest are fallbacks. */
      candidates: Candidate[];
      strategy: Optimize;
      mode: RoutingMode;
    }
  | { ok: false; code: "no_eligible_route"; constraint: NoEligibleConstraint; message: string }
  | { ok: false; code: "no_provider_available"; message: string };
