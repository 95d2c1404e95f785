// Small hand-built catalog entries for the routing tests: only the fields routing reads matter,
// the rest get plausible defaults.
import { CAPABILITY_KEYS } from "../../../src/catalog/types";
import type { Capabilities, DataPolicy, ModelEntry, ProviderEntry, RouteEntry } from "../../../src/catalog/types";

const capabilities = Object.fromEntries(CAPABILITY_KEYS.map((k) => [k, true])) as Capabilities;

export function provider(id: string, dataPolicy: DataPolicy = "none"): ProviderEntry {
  return {
    id,
    displayName: id,
    description: "",
    icon: "",
    adapter: "openai",
    baseUrl: `http://127.0.0.1:1/${id}/v1`,
    dataPolicy,
    byok: true,
    tiers: [],
    defaultTier: null,
    docsUrl: "",
    apiKeyEnv: `${id.toUpperCase()}_API_KEY`,
    platformKey: "sk-test",
    timeoutMs: 60_000,
    firstByteTimeoutMs: 30_000,
    idleTimeoutMs: 60_000,
    connectTimeoutMs: 10_000,
    streamTimeoutMs: 600_000,
    supportsResponses: false,
    local: false,
  };
}

export interface RouteSpec {
  provider: string;
  id?: string;
  input: number;
  output: number;
  ttft?: number;
  tps?: number;
  policy?: DataPolicy;
  endpoints?: RouteEntry["endpoints"];
}

export function route(spec: RouteSpec): RouteEntry {
  return {
    provider: spec.provider,
    providerModelId: spec.id ?? `${spec.provider}-model`,
    inputPrice: spec.input,
    outputPrice: spec.output,
    cacheReadPrice: null,
    cacheWritePrice: null,
    contextWindow: 128_000,
    maxOutputTokens: 8_192,
    latencyHint: "",
    ttftHintMs: spec.ttft ?? 500,
    tpsHint: spec.tps ?? 50,
    dataPolicy: spec.policy ?? "none",
    endpoints: spec.endpoints ?? ["chat_completions"],
    capabilities,
    inputModalities: ["text"],
    outputModalities: ["text"],
    tools: [],
    tiers: [],
    updatedAt: "2026-01-01T00:00:00Z",
  };
}

export function model(id: string, routes: RouteEntry[]): ModelEntry {
  return {
    id,
    displayName: id,
    family: "test",
    author: id.split("/")[0],
    aliases: [],
    capabilities,
    inputModalities: ["text"],
    outputModalities: ["text"],
    created: 0,
    routes,
  };
}

export function providerMap(...ids: string[]): Map<string, ProviderEntry> {
  return new Map(ids.map((id) => [id, provider(id)]));
}

/** `${provider}/${providerModelId}` of each candidate, in plan order. */
export function keys(candidates: readonly { routeKey: string }[]): string[] {
  return candidates.map((c) => c.routeKey);
}
