// Built-in routing defaults (CONTRACT §3 "routing defaults": the values when a workspace never set
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
});

/** Every field with its effective value, as the routing-defaults endpoints report them. */
export function effectiveRoutingDefaults(defaults: WorkspaceRoutingDefaults | undefined): EffectiveRoutingDefaults {
  return {
    optimize: defaults?.optimize ?? ROUTING_DEFAULTS.optimize,
    data_policy: defaults?.data_policy ?? ROUTING_DEFAULTS.data_policy,
    allow_fallbacks: defaults?.allow_fallbacks ?? ROUTING_DEFAULTS.allow_fallbacks,
    max_fallback_attempts: defaults?.max_fallback_attempts ?? ROUTING_DEFAULTS.max_fallback_attempts,
    providers: defaults?.providers ?? [],
    exclude_providers: defaults?.exclude_providers ?? [],
  };
}

/** Request fields win over workspace defaults, which win over the built-in defaults. */
export function resolveRoutingOptions(request: RequestRouting | undefined, defaults: WorkspaceRoutingDefaults | undefined): RoutingOptions {
  return {
    mode: request?.mode ?? "pool",
    optimize: request?.optimize ?? defaults?.optimize ?? ROUTING_DEFAULTS.optimize,
    maxCostPer1m: request?.maxCostPer1m,
    maxTtftMs: request?.maxTtftMs,
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
