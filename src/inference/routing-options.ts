// From the request's `gateway.routing` (snake_case, schema-checked) to the planner's RequestRouting, with
// the checks a schema cannot make: provider IDs must name catalog providers (a typo would otherwise
// silently filter nothing), and only_byok excludes only_platform.
import { ApiError } from "../http/errors";
import type { ProviderEntry } from "../catalog/types";
import type { CredentialChoice, Optimize, RequestRouting } from "../routing/types";
import type { Gateway } from "./gateway-schema";

type Routing = NonNullable<Gateway["routing"]>;

const LISTS = ["prefer", "providers", "exclude_providers"] as const;

function checkProviderIds(routing: Routing, providers: ReadonlyMap<string, ProviderEntry>): void {
  for (const field of LISTS) {
    const ids = routing[field];
    if (!ids) continue;
    for (let i = 0; i < ids.length; i++) {
      if (providers.has(ids[i]!)) continue;
      const param = `gateway.routing.${field}[${i}]`;
      throw new ApiError("invalid_parameter", `Invalid '${param}': unknown provider (see /v1/registry/providers).`, { param });
    }
  }
}

/** true picks the credential source; false (or absent) leaves the workspace's choice in place. */
function credentialOf(routing: Routing): CredentialChoice | undefined {
  if (routing.only_byok === true && routing.only_platform === true) {
    throw new ApiError("invalid_parameter", "Give at most one of 'gateway.routing.only_byok' and 'gateway.routing.only_platform'.", {
      param: "gateway.routing.only_platform",
    });
  }
  if (routing.only_byok === true) return "byok";
  if (routing.only_platform === true) return "platform";
  return undefined;
}

/**
 * The request's routing options; absent fields stay undefined (the workspace's defaults and the
 * built-in ones fill them: routing/defaults.ts). `optimize` is the request's, else the model ID's suffix's.
 */
export function requestRouting(
  routing: Gateway["routing"] | undefined,
  suffixOptimize: Optimize | undefined,
  providers: ReadonlyMap<string, ProviderEntry>,
): RequestRouting {
  if (!routing) return { optimize: suffixOptimize };
  checkProviderIds(routing, providers);
  return {
    mode: routing.mode,
    optimize: routing.optimize ?? suffixOptimize,
    maxCostPer1m: routing.max_cost_per_1m,
    maxTtftMs: routing.max_ttft_ms,
    minThroughputTps: routing.min_throughput_tps,
    ttftPercentile: routing.ttft_percentile,
    throughputPercentile: routing.throughput_percentile,
    minSuccessRate: routing.min_success_rate,
    prefer: routing.prefer,
    providers: routing.providers,
    excludeProviders: routing.exclude_providers,
    credential: credentialOf(routing),
    requireParameters: routing.require_parameters,
  };
}
