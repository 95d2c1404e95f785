// Turns the operator's config file rows (docs/configuration.md) into catalog entries. Errors name the config field
// path (`models.acme/x.routes[0].provider`) because start-up prints them as they are.
import type { ModelConfigT, ProviderConfigT, RouteConfigT } from "../config/schema";
import {
  DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_STREAM_TIMEOUT_MS,
  DEFAULT_LATENCY_PRIOR,
  DEFAULT_TIMEOUT_MS,
  LATENCY_HINT_PRIORS,
  PROVIDER_LATENCY_PRIORS,
  defaultApiKeyEnv,
  type LatencyPrior,
} from "./providers";
import {
  CAPABILITY_KEYS,
  type Capabilities,
  type CapabilityKey,
  type Endpoint,
  type ModelEntry,
  type ProviderEntry,
  type RouteEntry,
  type TierEntry,
} from "./types";

/** Unknown sizes get conservative defaults: a route promising less than it has is safer than more. */
export const DEFAULT_CONTEXT_WINDOW = 8_192;
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;
const ENDPOINTS: readonly Endpoint[] = ["chat_completions", "responses"];

function nonEmpty(v: string | undefined): string | null {
  return v !== undefined && v !== "" ? v : null;
}

/**
 * A config provider row, merged over the built-in row with the same ID when there is one: fields the
 * file gives win, the rest (base URL, tiers, docs, icon…) come from the built-in row. `tiers`, when
 * given, replace the built-in list whole.
 *
 * Platform credential: `api_key`, else the variable named by `api_key_env`, else the built-in row's
 * variable, else `<ID>_API_KEY` (upper-cased, `-`/`.` → `_`), read from `credentialEnv`.
 */
export function providerFromConfig(
  id: string,
  cfg: ProviderConfigT,
  base: ProviderEntry | undefined,
  credentialEnv: Record<string, string>,
): ProviderEntry {
  const baseUrl = cfg.base_url ?? base?.baseUrl;
  if (!baseUrl) throw new Error(`providers.${id}.base_url: required for a provider that is not built in`);
  const dataPolicy = cfg.data_policy ?? base?.dataPolicy ?? "none";
  const tiers: TierEntry[] = cfg.tiers
    ? cfg.tiers.map((t) => ({
        name: t.name,
        rpm: t.rpm ?? null,
        tpm: t.tpm ?? null,
        dataPolicy: t.data_policy ?? dataPolicy,
        isDefault: t.is_default ?? false,
      }))
    : (base?.tiers ?? []);
  // With no tier marked default, the first one is (as in the built-in rows).
  if (tiers.length > 0 && !tiers.some((t) => t.isDefault)) tiers[0] = { ...tiers[0]!, isDefault: true };
  const apiKeyEnv = cfg.api_key_env ?? base?.apiKeyEnv ?? defaultApiKeyEnv(id);
  const envNames = [cfg.api_key_env, base?.apiKeyEnv, defaultApiKeyEnv(id)].filter((n): n is string => n !== undefined);
  const platformKey = nonEmpty(cfg.api_key) ?? envNames.map((n) => nonEmpty(credentialEnv[n])).find((k) => k !== null) ?? null;
  // A built-in vendor's quirks stay when the file overrides its row (a custom row has none).
  const chatReasoning = cfg.chat_reasoning === "none" ? undefined : (cfg.chat_reasoning ?? base?.chatReasoning);
  const cacheControl = cfg.cache_control ?? base?.cacheControl ?? false;
  return {
    id,
    displayName: cfg.display_name ?? base?.displayName ?? id,
    description: cfg.description ?? base?.description ?? "",
    icon: base?.icon ?? "",
    adapter: cfg.adapter,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    dataPolicy,
    byok: cfg.byok ?? base?.byok ?? false,
    tiers,
    defaultTier: tiers.find((t) => t.isDefault)?.name ?? null,
    docsUrl: cfg.docs_url ?? base?.docsUrl ?? "",
    apiKeyEnv,
    platformKey,
    timeoutMs: cfg.timeout_ms ?? base?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    firstByteTimeoutMs: cfg.first_byte_timeout_ms ?? base?.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS,
    idleTimeoutMs: cfg.idle_timeout_ms ?? base?.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    connectTimeoutMs: cfg.connect_timeout_ms ?? base?.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    streamTimeoutMs: cfg.stream_timeout_ms ?? base?.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS,
    supportsResponses: cfg.supports_responses ?? base?.supportsResponses ?? false,
    local: base?.local ?? false,
    ...(chatReasoning !== undefined ? { chatReasoning } : {}),
    ...(cacheControl ? { cacheControl } : {}),
  };
}

/** A built-in provider with its platform credential looked up (no config row for it). */
export function withCredential(p: ProviderEntry, credentialEnv: Record<string, string>): ProviderEntry {
  return { ...p, platformKey: nonEmpty(credentialEnv[p.apiKeyEnv]) ?? nonEmpty(credentialEnv[defaultApiKeyEnv(p.id)]) };
}

function capabilitiesFromConfig(given: Record<string, boolean> | undefined, path: string): Capabilities {
  // Streaming is on unless the file says otherwise: every adapter streams.
  const caps = Object.fromEntries(CAPABILITY_KEYS.map((k) => [k, k === "supports_streaming"])) as Capabilities;
  for (const [k, v] of Object.entries(given ?? {})) {
    if (!(CAPABILITY_KEYS as readonly string[]).includes(k))
      throw new Error(`${path}.capabilities.${k}: unknown capability (known: ${CAPABILITY_KEYS.join(", ")})`);
    caps[k as CapabilityKey] = v;
  }
  return caps;
}

/** The route's prior: its provider's own when the route names no other hint, else the hint's figures. */
function latencyPrior(r: RouteConfigT): LatencyPrior {
  const own = PROVIDER_LATENCY_PRIORS.get(r.provider) ?? DEFAULT_LATENCY_PRIOR;
  if (r.latency_hint === undefined || r.latency_hint === own.hint) return own;
  return LATENCY_HINT_PRIORS[r.latency_hint];
}

function routeFromConfig(
  r: RouteConfigT,
  path: string,
  model: { capabilities: Capabilities; inputModalities: string[]; outputModalities: string[] },
  providers: ReadonlyMap<string, ProviderEntry>,
  updatedAt: string,
): RouteEntry {
  const provider = providers.get(r.provider);
  if (!provider) {
    const known = [...providers.keys()].join(", ");
    throw new Error(`${path}.provider: unknown provider "${r.provider}" (known: ${known})`);
  }
  const endpoints = (r.endpoints ?? ENDPOINTS).map((e, i) => {
    if (!(ENDPOINTS as readonly string[]).includes(e))
      throw new Error(`${path}.endpoints[${i}]: "${e}" is not one of ${ENDPOINTS.join(", ")}`);
    return e as Endpoint;
  });
  const prior = latencyPrior(r);
  const contextWindow = r.context_window ?? DEFAULT_CONTEXT_WINDOW;
  const latencyHint = prior.hint;
  const cacheReadPrice = r.cache_read_price ?? null;
  const cacheWritePrice = r.cache_write_price ?? null;
  return {
    provider: r.provider,
    providerModelId: r.provider_model_id,
    inputPrice: r.input_price,
    outputPrice: r.output_price,
    cacheReadPrice,
    cacheWritePrice,
    contextWindow,
    maxOutputTokens: r.max_output_tokens ?? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, contextWindow),
    latencyHint,
    ttftHintMs: r.ttft_hint_ms ?? prior.ttftMs,
    tpsHint: r.tps_hint ?? prior.tps,
    dataPolicy: r.data_policy ?? provider.dataPolicy,
    endpoints,
    capabilities: model.capabilities,
    inputModalities: model.inputModalities,
    outputModalities: model.outputModalities,
    tools: model.capabilities.supports_tools ? ["function_calling"] : [],
    tiers: [
      {
        name: "standard",
        inputPrice: r.input_price,
        outputPrice: r.output_price,
        cacheReadPrice,
        cacheWritePrice,
        latencyHint,
        priceVariants: [],
      },
    ],
    updatedAt,
  };
}

/** A config model. Its `author` defaults to the ID's prefix (`acme` for `acme/chat-small`). */
export function modelFromConfig(
  id: string,
  cfg: ModelConfigT,
  providers: ReadonlyMap<string, ProviderEntry>,
  updatedAt: string,
): ModelEntry {
  const path = `models.${id}`;
  const slash = id.indexOf("/");
  const capabilities = capabilitiesFromConfig(cfg.capabilities, path);
  const inputModalities = cfg.input_modalities ?? (capabilities.supports_vision ? ["text", "image"] : ["text"]);
  const outputModalities = cfg.output_modalities ?? ["text"];
  const shared = { capabilities, inputModalities, outputModalities };
  return {
    id,
    displayName: cfg.display_name ?? (slash >= 0 ? id.slice(slash + 1) : id),
    family: cfg.family ?? "",
    author: cfg.author ?? (slash > 0 ? id.slice(0, slash) : ""),
    aliases: cfg.aliases ?? [],
    capabilities,
    inputModalities,
    outputModalities,
    created: 0,
    routes: cfg.routes.map((r, i) => routeFromConfig(r, `${path}.routes[${i}]`, shared, providers, updatedAt)),
  };
}
