// planRoute: from the requested models to an ordered attempt plan (CONTRACT §2). Pure apart from
// reading the health store; runs on every request, so it walks the routes once and allocates only
// the candidates it keeps.
//
// Filter order: endpoint support, then the constraints — `providers` allow-list,
// `exclude_providers`, data policy, blended price, expected TTFT — then servability — provider
// known and credentialed, circuit not open (a half-open circuit with its probe already taken counts
// as open). When the constraints empty the list the answer names the one that emptied it
// (400 no_eligible_route); when routes survive the constraints but none can serve, or no requested
// model has a route for the endpoint at all, it is no_provider_available (503).
import type { DataPolicy, Endpoint, ModelEntry, ProviderEntry, RouteEntry } from "../catalog/types";
import { planLength, resolveRoutingOptions, ROUTING_DEFAULTS } from "./defaults";
import type { HealthStore } from "./health";
import { rankCandidates } from "./rank";
import type { Candidate, NoEligibleConstraint, RequestRouting, RoutePlan, RoutingOptions, WorkspaceRoutingDefaults } from "./types";

export interface PlanInput {
  /** The requested models, aliases already resolved, in the order the caller gave them. */
  models: readonly ModelEntry[];
  providers: ReadonlyMap<string, ProviderEntry>;
  /** `gateway.routing` of the request (a model-ID suffix already folded into `optimize`). */
  request?: RequestRouting;
  /** The workspace's routing defaults. */
  defaults?: WorkspaceRoutingDefaults;
  /** A platform key or an enabled workspace BYOK key exists (local providers: always true). */
  hasCredential(providerId: string): boolean;
  health: HealthStore;
  endpoint: Endpoint;
  now: number;
}

// Index = the stage at which a route drops out; CONSTRAINTS.length means it passed them all.
const CONSTRAINTS: readonly NoEligibleConstraint[] = ["providers", "exclude_providers", "data_policy", "max_cost_per_1m", "max_ttft_ms"];
const PASSED = CONSTRAINTS.length;

const POLICY_STRENGTH: Readonly<Record<DataPolicy, number>> = { none: 0, no_training: 1, zdr: 2 };
const DATA_POLICY_NAMES: readonly DataPolicy[] = ["none", "no_training", "zdr"];

/** (input + output) / 2, USD per 1M tokens: what `max_cost_per_1m` compares against. */
export function blendedPrice(route: RouteEntry): number {
  return (route.inputPrice + route.outputPrice) / 2;
}

function servesEndpoint(route: RouteEntry, endpoint: Endpoint): boolean {
  // An empty list means "not declared": assume both. Responses requests can also be translated to
  // chat completions, so any chat route serves them.
  if (route.endpoints.length === 0 || route.endpoints.includes(endpoint)) return true;
  return endpoint === "responses" && route.endpoints.includes("chat_completions");
}

interface Limits {
  allow: readonly string[];
  exclude: readonly string[];
  minPolicy: number;
  options: RoutingOptions;
}

/** The first constraint a route fails, or PASSED. */
function constraintStage(route: RouteEntry, ttftMs: number, limits: Limits): number {
  if (limits.allow.length > 0 && !limits.allow.includes(route.provider)) return 0;
  if (limits.exclude.includes(route.provider)) return 1;
  if (POLICY_STRENGTH[route.dataPolicy] < limits.minPolicy) return 2;
  const { maxCostPer1m, maxTtftMs } = limits.options;
  if (maxCostPer1m !== undefined && blendedPrice(route) > maxCostPer1m) return 3;
  if (maxTtftMs !== undefined && ttftMs > maxTtftMs) return 4;
  return PASSED;
}

function makeCandidate(
  model: ModelEntry,
  route: RouteEntry,
  provider: ProviderEntry,
  routeKey: string,
  halfOpen: boolean,
  ttftMs: number,
  tps: number,
): Candidate {
  return {
    model,
    route,
    provider,
    routeKey,
    circuit: halfOpen ? "half_open" : "closed",
    score: 0,
    breakdown: {
      cost: { value: blendedPrice(route), normalized: 0, weight: 0 },
      ttft: { value: ttftMs, normalized: 0, weight: 0 },
      tps: { value: tps, normalized: 0, weight: 0 },
    },
  };
}

function noEligible(stage: number, limits: Limits): RoutePlan {
  const constraint = CONSTRAINTS[stage];
  const o = limits.options;
  const detail: Record<NoEligibleConstraint, string> = {
    providers: `the provider allow-list (${limits.allow.join(", ")})`,
    exclude_providers: `the excluded providers (${limits.exclude.join(", ")})`,
    data_policy: `the required data policy (at least ${DATA_POLICY_NAMES[limits.minPolicy]})`,
    max_cost_per_1m: `max_cost_per_1m (blended price at most ${o.maxCostPer1m} USD per 1M tokens)`,
    max_ttft_ms: `max_ttft_ms (expected time to first token at most ${o.maxTtftMs} ms)`,
  };
  return {
    ok: false,
    code: "no_eligible_route",
    constraint,
    message: `No route of the requested model(s) satisfies ${detail[constraint]}.`,
  };
}

export function planRoute(input: PlanInput): RoutePlan {
  const { defaults, health, now, endpoint } = input;
  const options = resolveRoutingOptions(input.request, defaults);
  const limits: Limits = {
    allow: defaults?.providers ?? ROUTING_DEFAULTS.providers,
    exclude: defaults?.exclude_providers ?? ROUTING_DEFAULTS.exclude_providers,
    minPolicy: POLICY_STRENGTH[defaults?.data_policy ?? ROUTING_DEFAULTS.data_policy],
    options,
  };
  const fallback = options.mode === "fallback";
  // pool: one bucket; fallback: one bucket per model, kept in the given order.
  const buckets: Candidate[][] = [];
  let pool: Candidate[] = [];
  let routesForEndpoint = 0;
  let deepestStage = -1;

  for (let m = 0; m < input.models.length; m++) {
    const model = input.models[m];
    if (isDuplicate(input.models, m)) continue; // an alias and its canonical ID listed together
    if (fallback) pool = [];
    for (const route of model.routes) {
      if (!servesEndpoint(route, endpoint)) continue;
      routesForEndpoint++;
      const key = `${route.provider}/${route.providerModelId}`;
      const ttftMs = health.expectedTtftFor(key, route.ttftHintMs);
      const stage = constraintStage(route, ttftMs, limits);
      if (stage > deepestStage) deepestStage = stage;
      if (stage !== PASSED) continue;
      const provider = input.providers.get(route.provider);
      if (provider === undefined || !input.hasCredential(route.provider)) continue;
      if (!health.canAttempt(key, now)) continue;
      const halfOpen = health.state(key, now) === "half_open";
      const tps = health.expectedTpsFor(key, route.tpsHint);
      pool.push(makeCandidate(model, route, provider, key, halfOpen, ttftMs, tps));
    }
    if (fallback && pool.length > 0) buckets.push(pool);
  }
  if (!fallback && pool.length > 0) buckets.push(pool);

  if (buckets.length === 0) {
    if (routesForEndpoint === 0) {
      return {
        ok: false,
        code: "no_provider_available",
        message: `No route of the requested model(s) serves the ${endpoint} endpoint.`,
      };
    }
    if (deepestStage < PASSED) return noEligible(deepestStage, limits);
    return {
      ok: false,
      code: "no_provider_available",
      message: "No provider can serve the requested model(s) now: no credential is configured or every route's circuit is open.",
    };
  }

  const limit = planLength(defaults);
  let candidates: Candidate[] = [];
  for (let b = 0; b < buckets.length && candidates.length < limit; b++) {
    const ranked = rankCandidates(buckets[b], options.optimize, limit - candidates.length);
    candidates = candidates.length === 0 ? ranked : candidates.concat(ranked);
  }
  return { ok: true, candidates, strategy: options.optimize, mode: options.mode };
}

function isDuplicate(models: readonly ModelEntry[], index: number): boolean {
  const id = models[index].id;
  for (let i = 0; i < index; i++) if (models[i].id === id) return true;
  return false;
}
