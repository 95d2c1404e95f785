// The routing vocabulary shared by the planner, the request pipeline and the routing-defaults
// endpoints. Plain data only: the planner is pure and runs on every request.
import type { DataPolicy, ModelEntry, ProviderEntry, RouteEntry } from "../catalog/types";

export const OPTIMIZE_STRATEGIES = ["cost", "cost-focus", "ttft", "ttft-focus", "tps", "tps-focus", "balanced"] as const;
export type Optimize = (typeof OPTIMIZE_STRATEGIES)[number];

export type RoutingMode = "pool" | "fallback";

/** The three figures a route is ranked by. */
export type Factor = "cost" | "ttft" | "tps";

export const PERCENTILES = ["p50", "p95"] as const;
/** Which estimate a ceiling compares against: the median, or the 95th percentile (TTFT: slowest 5 %; throughput: the rate 95 % reach). */
export type Percentile = (typeof PERCENTILES)[number];

/** Which credentials may pay for the call: either (BYOK first), only the workspace's own keys, only the platform's. */
export type CredentialChoice = "any" | "byok" | "platform";

/** Fully resolved per-request options (request fields over workspace defaults over built-in defaults). */
export interface RoutingOptions {
  mode: RoutingMode;
  optimize: Optimize;
  /** Ceiling on the blended price (input+output)/2, USD per 1M tokens. */
  maxCostPer1m?: number;
  /** Ceiling on the route's expected time to first token (at `ttftPercentile`), ms. */
  maxTtftMs?: number;
  /** Floor on the route's expected output tokens per second (at `throughputPercentile`). */
  minThroughputTps?: number;
  ttftPercentile: Percentile;
  throughputPercentile: Percentile;
  /** Floor on the route's recent success rate, 0..1 (routes never measured pass). */
  minSuccessRate?: number;
  /** Providers preferred when their routes are otherwise close: a soft bonus, never a filter. */
  prefer: readonly string[];
  /** The request's own allow-list and exclusions, applied on top of the workspace's. */
  providers: readonly string[];
  excludeProviders: readonly string[];
  credential: CredentialChoice;
  /** Only routes whose adapter carries every parameter the request uses (checked by the pipeline). */
  requireParameters: boolean;
}

/** What a request may set in `gateway.routing` (all optional; absent fields fall back to defaults). */
export type RequestRouting = Partial<RoutingOptions>;

/** A workspace's stored routing defaults (docs/contract.md "Routing" plus the router's options); absent fields take the built-in defaults. */
export interface WorkspaceRoutingDefaults {
  optimize?: Optimize;
  data_policy?: DataPolicy;
  allow_fallbacks?: boolean;
  /** 1 to 19: further attempts after the first. */
  max_fallback_attempts?: number;
  /** Allow-list of provider IDs; empty or absent means every provider. */
  providers?: string[];
  exclude_providers?: string[];
  /** null (as in the effective defaults): no floor. */
  min_throughput_tps?: number | null;
  ttft_percentile?: Percentile;
  throughput_percentile?: Percentile;
  min_success_rate?: number | null;
  prefer?: string[];
  only_byok?: boolean;
  only_platform?: boolean;
  require_parameters?: boolean;
}

/** The effective value of every routing default (what GET routing-defaults reports); null: no floor set. */
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
  /** Whose credential pays for this attempt: the workspace's BYOK key or the platform's. */
  keySource: "byok" | "platform";
  /** The router's estimates of this route when it was ranked. */
  estimate: RouteEstimate;
  /** This route leads the plan to measure it (the bandit's pick), not because it ranked best. */
  explored: boolean;
  /** This route leads the plan because the conversation's prompt cache lives there (sticky routing). */
  sticky: boolean;
  /**
   * `half_open` means the attempt is a circuit probe: the pipeline must win
   * `health.tryAcquireProbe(routeKey, now)` before sending it (and skip the candidate otherwise).
   */
  circuit: "closed" | "half_open";
  /** Weighted sum of the normalised figures, 0..1, higher is better. */
  score: number;
  breakdown: ScoreBreakdown;
}

export type NoEligibleConstraint =
  | "providers"
  | "exclude_providers"
  | "only_byok"
  | "only_platform"
  | "data_policy"
  | "max_cost_per_1m"
  | "max_ttft_ms"
  | "min_throughput_tps"
  | "min_success_rate"
  | "require_parameters";

/** A route's estimates as the router ranks on them; figures are the priors until measured. */
export interface RouteEstimate {
  ttftP50Ms: number;
  ttftP95Ms: number;
  tpsP50: number;
  /** The rate 95 % of answers reach or beat (the pessimistic end). */
  tpsP95: number;
  /** Recent share of attempts without a provider failure, 0..1 (1 before any attempt). */
  successRate: number;
  /** Effective (time-decayed) sample weights behind each figure; 0 means the prior alone. */
  ttftSamples: number;
  tpsSamples: number;
  outcomeSamples: number;
}

export type RoutePlan =
  | {
      ok: true;
      /** Ordered attempt plan: the first is tried first; the rest are fallbacks. */
      candidates: Candidate[];
      strategy: Optimize;
      mode: RoutingMode;
    }
  | {
      ok: false;
      code: "no_eligible_route";
      constraint: NoEligibleConstraint;
      /** The request field to name in the 400 (`gateway.routing.…` when the request set it, else the workspace default's name). */
      param: string;
      message: string;
    }
  | { ok: false; code: "no_provider_available"; message: string };
