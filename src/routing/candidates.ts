// planRoute: from the requested models to an ordered attempt plan (docs/contract.md "Routing"). Pure apart from
// reading the health store (and its bandit's budget); runs on every request, so it walks the routes once
// and allocates only the candidates it keeps.
//
// Every route serves both endpoints: a Responses request is translated to chat completions for a chat-only
// route, a chat or Messages request to the Responses API for a Responses-only one (as OpenRouter serves
// gpt-5.5-pro or the codex models to chat clients); a route's `endpoints` say which wire it speaks.
//
// Filter order: the constraints — `providers` allow-lists (the workspace's and
// the request's), exclusions, only_byok / only_platform, data policy, blended price, expected TTFT (at
// `ttft_percentile`), expected throughput (at `throughput_percentile`), success rate — then servability —
// provider known and credentialed, circuit not open (a half-open circuit with its probe already taken
// counts as open). When the constraints empty the list the answer names the one that emptied it
// (400 no_eligible_route); when routes survive the constraints but none can serve, or the requested
// models have no routes at all, it is no_provider_available (503).
//
// Ranking uses the routes' estimates (health.ts, estimates.ts); the bandit (explore.ts) may lead with
// another route to measure it, and a conversation's cache route (sticky) leads when it is eligible.
import type { DataPolicy, Endpoint, ModelEntry, ProviderEntry, RouteEntry } from "../catalog/types";
import { planLength, resolveRoutingOptions, ROUTING_DEFAULTS } from "./defaults";
import { explorationPick } from "./explore";
import { routeKey, type HealthStore } from "./health";
import { rankCandidates, rankedFigures, scoreCandidates as scoreCandidatesFor } from "./rank";
import type {
  Candidate,
  CredentialChoice,
  NoEligibleConstraint,
  RequestRouting,
  RouteEstimate,
  RoutePlan,
  RoutingOptions,
  WorkspaceRoutingDefaults,
} from "./types";

export interface PlanInput {
  /** The requested models, aliases already resolved, in the order the caller gave them. */
  models: readonly ModelEntry[];
  providers: ReadonlyMap<string, ProviderEntry>;
  /** `gateway.routing` of the request (a model-ID suffix already folded into `optimize`). */
  request?: RequestRouting;
  /** The workspace's routing defaults. */
  defaults?: WorkspaceRoutingDefaults;
  /**
   * Whose credential would pay for this provider under `choice` ("any": the workspace's BYOK key first,
   * then the platform's; local providers count as platform), or null when there is none.
   */
  credential?(providerId: string, choice: CredentialChoice): "byok" | "platform" | null;
  /** The older form: whether any credential exists (treated as the platform's). */
  hasCredential?(providerId: string): boolean;
  health: HealthStore;
  endpoint: Endpoint;
  now: number;
  /** The route holding this conversation's prompt cache: it leads the plan when it is eligible. */
  stickyRouteKey?: string;
}

// Index = the stage at which a route drops out; CONSTRAINTS.length means it passed them all.
const CONSTRAINTS: readonly NoEligibleConstraint[] = [
  "providers",
  "exclude_providers",
  "only_byok",
  "only_platform",
  "data_policy",
  "max_cost_per_1m",
  "max_ttft_ms",
  "min_throughput_tps",
  "min_success_rate",
];
const PASSED = CONSTRAINTS.length;
const ESTIMATED = CONSTRAINTS.indexOf("max_ttft_ms");

const POLICY_STRENGTH: Readonly<Record<DataPolicy, number>> = { none: 0, no_training: 1, zdr: 2 };
const DATA_POLICY_NAMES: readonly DataPolicy[] = ["none", "no_training", "zdr"];

/** (input + output) / 2, USD per 1M tokens: what `max_cost_per_1m` compares against. */
export function blendedPrice(route: RouteEntry): number {
  return (route.inputPrice + route.outputPrice) / 2;
}

interface Limits {
  allow: readonly string[];
  exclude: readonly string[];
  minPolicy: number;
  options: RoutingOptions;
}

/** The first constraint a route fails before its estimates are needed, or ESTIMATED. */
function staticStage(route: RouteEntry, source: "byok" | "platform" | null, limits: Limits): number {
  const o = limits.options;
  if (limits.allow.length > 0 && !limits.allow.includes(route.provider)) return 0;
  if (o.providers.length > 0 && !o.providers.includes(route.provider)) return 0;
  if (limits.exclude.includes(route.provider) || o.excludeProviders.includes(route.provider)) return 1;
  if (o.credential === "byok" && source === null) return 2;
  if (o.credential === "platform" && source === null) return 3;
  if (POLICY_STRENGTH[route.dataPolicy] < limits.minPolicy) return 4;
  if (o.maxCostPer1m !== undefined && blendedPrice(route) > o.maxCostPer1m) return 5;
  return ESTIMATED;
}

/**
 * The first measured constraint a route fails (TTFT, throughput, success rate), or PASSED. The ceilings
 * read the steadier estimate (`ceiling`: about the last fifty samples) so that noise near a ceiling does
 * not shut a route out for good; the success rate reads the recent one.
 */
function estimateStage(e: RouteEstimate, ceiling: RouteEstimate | null, o: RoutingOptions): number {
  const c = ceiling ?? e;
  if (o.maxTtftMs !== undefined && (o.ttftPercentile === "p95" ? c.ttftP95Ms : c.ttftP50Ms) > o.maxTtftMs) return ESTIMATED;
  if (o.minThroughputTps !== undefined && (o.throughputPercentile === "p95" ? c.tpsP95 : c.tpsP50) < o.minThroughputTps)
    return ESTIMATED + 1;
  if (o.minSuccessRate !== undefined && e.outcomeSamples > 0 && e.successRate < o.minSuccessRate) return ESTIMATED + 2;
  return PASSED;
}

function makeCandidate(
  model: ModelEntry,
  route: RouteEntry,
  provider: ProviderEntry,
  routeKey: string,
  keySource: "byok" | "platform",
  halfOpen: boolean,
  estimate: RouteEstimate,
  preferred: boolean,
): Candidate {
  const c: Candidate = {
    model,
    route,
    provider,
    routeKey,
    keySource,
    estimate,
    explored: false,
    sticky: false,
    circuit: halfOpen ? "half_open" : "closed",
    score: 0,
    breakdown: {
      cost: { value: 0, normalized: 0, weight: 0 },
      ttft: { value: 0, normalized: 0, weight: 0 },
      tps: { value: 0, normalized: 0, weight: 0 },
    },
  };
  // A half-open route is ranked as if reliable: its circuit already answers for the failures, and ranking
  // it down as well would keep it from ever leading a plan, so from ever being probed.
  const reliability = halfOpen ? 1 : estimate.successRate;
  rankedFigures(c.breakdown, blendedPrice(route), estimate.ttftP50Ms, estimate.tpsP50, reliability, preferred);
  return c;
}

/** The request's field when the request set the constraint, else the workspace default's name. */
function paramOf(constraint: NoEligibleConstraint, request: RequestRouting | undefined): string {
  const fromRequest: Partial<Record<NoEligibleConstraint, boolean>> = {
    providers: (request?.providers?.length ?? 0) > 0,
    exclude_providers: (request?.excludeProviders?.length ?? 0) > 0,
    only_byok: request?.credential === "byok",
    only_platform: request?.credential === "platform",
    max_cost_per_1m: true,
    max_ttft_ms: true,
    min_throughput_tps: request?.minThroughputTps !== undefined,
    min_success_rate: request?.minSuccessRate !== undefined,
    require_parameters: request?.requireParameters !== undefined,
  };
  return fromRequest[constraint] ? `gateway.routing.${constraint}` : constraint;
}

export function noEligible(
  constraint: NoEligibleConstraint,
  request: RequestRouting | undefined,
  options: RoutingOptions,
  limits?: Limits,
): RoutePlan {
  const o = options;
  const allow = [...(limits?.allow ?? []), ...o.providers];
  const exclude = [...(limits?.exclude ?? []), ...o.excludeProviders];
  const detail: Record<NoEligibleConstraint, string> = {
    providers: `the provider allow-list (${allow.join(", ")})`,
    exclude_providers: `the excluded providers (${exclude.join(", ")})`,
    only_byok: "only_byok (no route's provider has a BYOK key of this workspace)",
    only_platform: "only_platform (no route's provider has a platform key)",
    data_policy: `the required data policy (at least ${DATA_POLICY_NAMES[limits?.minPolicy ?? 0]})`,
    max_cost_per_1m: `max_cost_per_1m (blended price at most ${o.maxCostPer1m} USD per 1M tokens)`,
    max_ttft_ms: `max_ttft_ms (expected ${o.ttftPercentile} time to first token at most ${o.maxTtftMs} ms)`,
    min_throughput_tps: `min_throughput_tps (expected ${o.throughputPercentile} throughput at least ${o.minThroughputTps} tokens/s)`,
    min_success_rate: `min_success_rate (recent success rate at least ${o.minSuccessRate})`,
    require_parameters: "require_parameters (no route carries every parameter of the request)",
  };
  return {
    ok: false,
    code: "no_eligible_route",
    constraint,
    param: paramOf(constraint, request),
    message: `No route of the requested model(s) satisfies ${detail[constraint]}.`,
  };
}

function credentialOf(input: PlanInput, providerId: string, choice: CredentialChoice): "byok" | "platform" | null {
  if (input.credential) return input.credential(providerId, choice);
  if (choice === "byok") return null;
  return input.hasCredential?.(providerId) ? "platform" : null;
}

export function planRoute(input: PlanInput): RoutePlan {
  const { defaults, health, now } = input;
  const options = resolveRoutingOptions(input.request, defaults);
  const limits: Limits = {
    allow: defaults?.providers ?? ROUTING_DEFAULTS.providers,
    exclude: defaults?.exclude_providers ?? ROUTING_DEFAULTS.exclude_providers,
    minPolicy: POLICY_STRENGTH[defaults?.data_policy ?? ROUTING_DEFAULTS.data_policy],
    options,
  };
  const fallback = options.mode === "fallback";
  const prefer = options.prefer;
  const hasCeiling = options.maxTtftMs !== undefined || options.minThroughputTps !== undefined;
  // pool: one bucket; fallback: one bucket per model, kept in the given order.
  const buckets: Candidate[][] = [];
  let pool: Candidate[] = [];
  let deepestStage = -1;
  let sticky: Candidate | null = null;

  for (let m = 0; m < input.models.length; m++) {
    const model = input.models[m];
    if (isDuplicate(input.models, m)) continue; // an alias and its canonical ID listed together
    if (fallback) pool = [];
    for (const route of model.routes) {
      const source = credentialOf(input, route.provider, options.credential);
      let stage = staticStage(route, source, limits);
      if (stage < ESTIMATED) {
        if (stage > deepestStage) deepestStage = stage;
        continue;
      }
      const key = routeKey(route);
      const estimate = health.estimateFor(key, route.ttftHintMs, route.tpsHint, now);
      const ceiling = hasCeiling ? health.ceilingEstimate(key, { ttftMs: route.ttftHintMs, tps: route.tpsHint }, now) : null;
      stage = estimateStage(estimate, ceiling, options);
      if (stage > deepestStage) deepestStage = stage;
      if (stage !== PASSED) continue;
      const provider = input.providers.get(route.provider);
      if (provider === undefined || source === null) continue;
      const circuit = health.circuitFor(key, now);
      if (circuit < 0) continue;
      const halfOpen = circuit === 1;
      const preferred = prefer.length > 0 && prefer.includes(route.provider);
      const c = makeCandidate(model, route, provider, key, source, halfOpen, estimate, preferred);
      if (key === input.stickyRouteKey && sticky === null) sticky = c;
      pool.push(c);
    }
    if (fallback && pool.length > 0) buckets.push(pool);
  }
  if (!fallback && pool.length > 0) buckets.push(pool);

  if (buckets.length === 0) {
    if (deepestStage < 0) return { ok: false, code: "no_provider_available", message: "The requested model(s) have no routes." };
    if (deepestStage < PASSED) return noEligible(CONSTRAINTS[deepestStage], input.request, options, limits);
    return {
      ok: false,
      code: "no_provider_available",
      message: "No provider can serve the requested model(s) now: no credential is configured or every route's circuit is open.",
    };
  }

  const limit = planLength(defaults);
  let candidates: Candidate[] = [];
  for (let b = 0; b < buckets.length && candidates.length < limit; b++) {
    const bucket = buckets[b];
    // The lead of the plan: the conversation's cache route, else perhaps a route to measure (first bucket only).
    let lead: Candidate | null = null;
    if (b === 0) {
      if (sticky !== null && bucket.includes(sticky)) {
        sticky.sticky = true;
        lead = sticky;
      } else if (options.optimize !== "cost" && bucket.length > 1 && health.canExplore()) {
        scoreCandidatesFor(bucket, options.optimize);
        lead = explorationPick(bucket, options.optimize, health, now, prefer);
      }
    }
    let ranked = rankCandidates(bucket, options.optimize, limit - candidates.length);
    if (lead !== null && ranked[0] !== lead) ranked = withLead(ranked, lead);
    candidates = candidates.length === 0 ? ranked : candidates.concat(ranked);
  }
  return { ok: true, candidates, strategy: options.optimize, mode: options.mode };
}

/** `ranked` with `lead` moved to the front (or put there in place of the last), keeping its length. */
function withLead(ranked: Candidate[], lead: Candidate): Candidate[] {
  const at = ranked.indexOf(lead);
  if (at > 0) ranked.splice(at, 1);
  else if (at < 0 && ranked.length > 0) ranked.length -= 1;
  ranked.unshift(lead);
  return ranked;
}

function isDuplicate(models: readonly ModelEntry[], index: number): boolean {
  const id = models[index].id;
  for (let i = 0; i < index; i++) if (models[i].id === id) return true;
  return false;
}
