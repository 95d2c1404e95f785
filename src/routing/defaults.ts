// Built-in routing defaults (docs/contract.md "Routing options": the values when a workspace never set
// any) and the merge of request options over workspace defaults over these.
import type { EffectiveRoutingDefaults, RequestRouting, RoutingOptions, WorkspaceRoutingDefaults } from "./types";

export const MAX_FALLBACK_ATTEMPTS = 19;

export const ROUTING_DEFAULTS: Readonly<EffectiveRoutingDefaults> = Object.freeze({
  optimize: "cost-focus",
  data_policy: "none",
  allow_fallbacks: true,
  max_fallback_attempts: MAX_FALLBACK_ATTEMPTS,
  providers: [],
  exclude_providers: [],
  min_throughput_tps: null,
  ttft_percentile: "p50",
  throughput_percentile: "p50",
  min_success_rate: null,
  prefer: [],
  only_byok: false,
  only_platform: false,
  require_parameters: false,
});

/** Every field with its effective value, as the routing-defaults endpoints report them. */
export function effectiveRoutingDefaults(defaults: WorkspaceRoutingDefaults | undefined): EffectiveRoutingDefaults {
  const d = ROUTING_DEFAULTS;
  return {
    optimize: defaults?.optimize ?? d.optimize,
    data_policy: defaults?.data_policy ?? d.data_policy,
    allow_fallbacks: defaults?.allow_fallbacks ?? d.allow_fallbacks,
    max_fallback_attempts: defaults?.max_fallback_attempts ?? d.max_fallback_attempts,
    providers: defaults?.providers ?? [],
    exclude_providers: defaults?.exclude_providers ?? [],
    min_throughput_tps: defaults?.min_throughput_tps ?? null,
    ttft_percentile: defaults?.ttft_percentile ?? d.ttft_percentile,
    throughput_percentile: defaults?.throughput_percentile ?? d.throughput_percentile,
    min_success_rate: defaults?.min_success_rate ?? null,
    prefer: defaults?.prefer ?? [],
    only_byok: defaults?.only_byok ?? false,
    only_platform: defaults?.only_platform ?? false,
    require_parameters: defaults?.require_parameters ?? false,
  };
}

const NONE: readonly string[] = Object.freeze([]);

function credentialOf(defaults: WorkspaceRoutingDefaults | undefined): RoutingOptions["credential"] {
  if (defaults?.only_byok) return "byok";
  if (defaults?.only_platform) return "platform";
  return "any";
}

/**
 * Request fields win over workspace defaults, which win over the built-in defaults. Provider lists are
 * the request's own: the planner applies them on top of the workspace's (they narrow, never widen).
 */
export function resolveRoutingOptions(request: RequestRouting | undefined, defaults: WorkspaceRoutingDefaults | undefined): RoutingOptions {
  // Most requests set no routing option (at most a model-ID suffix's strategy): their options follow from
  // the workspace's defaults alone, whose effective record is one object per stored row, so they are cached.
  if (defaults !== undefined && onlyOptimize(request)) return cachedOptions(defaults, request?.optimize);
  return mergeOptions(request, defaults);
}

const CACHED = new WeakMap<WorkspaceRoutingDefaults, Map<string | undefined, RoutingOptions>>();

function cachedOptions(defaults: WorkspaceRoutingDefaults, optimize: RequestRouting["optimize"]): RoutingOptions {
  let byOptimize = CACHED.get(defaults);
  if (byOptimize === undefined) {
    byOptimize = new Map();
    CACHED.set(defaults, byOptimize);
  }
  let options = byOptimize.get(optimize);
  if (options === undefined) {
    options = Object.freeze(mergeOptions(optimize === undefined ? undefined : { optimize }, defaults));
    byOptimize.set(optimize, options);
  }
  return options;
}

function onlyOptimize(request: RequestRouting | undefined): boolean {
  if (request === undefined) return true;
  for (const k in request) if (k !== "optimize" && request[k as keyof RequestRouting] !== undefined) return false;
  return true;
}

function mergeOptions(request: RequestRouting | undefined, defaults: WorkspaceRoutingDefaults | undefined): RoutingOptions {
  return {
    mode: request?.mode ?? "pool",
    optimize: request?.optimize ?? defaults?.optimize ?? ROUTING_DEFAULTS.optimize,
    maxCostPer1m: request?.maxCostPer1m,
    maxTtftMs: request?.maxTtftMs,
    minThroughputTps: request?.minThroughputTps ?? defaults?.min_throughput_tps ?? undefined,
    ttftPercentile: request?.ttftPercentile ?? defaults?.ttft_percentile ?? "p50",
    throughputPercentile: request?.throughputPercentile ?? defaults?.throughput_percentile ?? "p50",
    minSuccessRate: request?.minSuccessRate ?? defaults?.min_success_rate ?? undefined,
    prefer: request?.prefer ?? defaults?.prefer ?? NONE,
    providers: request?.providers ?? NONE,
    excludeProviders: request?.excludeProviders ?? NONE,
    credential: request?.credential ?? credentialOf(defaults),
    requireParameters: request?.requireParameters ?? defaults?.require_parameters ?? false,
  };
}

/**
 * Length of the attempt plan: 1 without fallbacks, else 1 + max_fallback_attempts. Out-of-range
 * values are clamped (the edge validates 1..19; this keeps a bad stored value from breaking routing).
 */
export function planLength(defaults: WorkspaceRoutingDefaults | undefined): number {
  if (defaults?.allow_fallbacks === false) return 1;
  const raw = defaults?.max_fallback_attempts ?? MAX_FALLBACK_ATTEMPTS;
  const attempts = Number.isFinite(raw) ? Math.trunc(raw) : MAX_FALLBACK_ATTEMPTS;
  return 1 + Math.min(MAX_FALLBACK_ATTEMPTS, Math.max(1, attempts));
}
