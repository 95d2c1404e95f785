// Pure renderers from the Catalog to the public JSON shapes: gateway-api.md 2.1–2.4 and the BYOK discovery
// shapes docs/contract.md describes. Snake_case lives here only; the catalog itself is camelCase.
import type { Catalog, Endpoint, ModelEntry, ProviderEntry, RouteEntry } from "./types";

export function renderRegistryProviders(catalog: Catalog) {
  const providers = [...catalog.providers.values()].map((p) => ({
    id: p.id,
    display_name: p.displayName,
    description: p.description,
    icon: p.icon,
    data_policy: p.dataPolicy,
  }));
  return { providers, count: providers.length };
}

/** A route costs nothing when both its prices are zero (OpenRouter `:free`, Gemma on Gemini, local servers). */
function isFree(r: RouteEntry): boolean {
  return r.inputPrice === 0 && r.outputPrice === 0;
}

function uniq(values: string[]): string[] {
  return [...new Set(values)];
}

export function renderRegistryModels(catalog: Catalog) {
  const models = [...catalog.models.values()].map((m) => ({
    id: m.id,
    family: m.family,
    display_name: m.displayName,
    author: m.author,
    capabilities: { ...m.capabilities },
    input_modalities: m.inputModalities,
    output_modalities: m.outputModalities,
    providers: uniq(m.routes.map((r) => r.provider)),
    has_free_provider: m.routes.some(isFree),
  }));
  return { models, count: models.length };
}

function directoryRoute(r: RouteEntry) {
  return {
    provider: r.provider,
    provider_model_id: r.providerModelId,
    context_window: r.contextWindow,
    max_output_tokens: r.maxOutputTokens,
    capabilities: { ...r.capabilities },
    input_modalities: r.inputModalities,
    output_modalities: r.outputModalities,
    tools: r.tools,
    tiers: r.tiers.map((t) => ({
      name: t.name,
      input_price: t.inputPrice,
      output_price: t.outputPrice,
      // 2.4 types this as a number: without a cache discount, cached tokens cost the input price.
      cache_read_price: t.cacheReadPrice ?? t.inputPrice,
      cache_write_price: t.cacheWritePrice,
      latency_hint: t.latencyHint,
      price_variants: (t.priceVariants ?? []).map((v) => ({
        name: v.name,
        above_input_tokens: v.aboveInputTokens,
        input_price: v.inputPrice,
        output_price: v.outputPrice,
        cache_read_price: v.cacheReadPrice ?? v.inputPrice,
      })),
    })),
    updated_at: r.updatedAt,
    data_policy: r.dataPolicy,
  };
}

export function renderDirectory(catalog: Catalog) {
  const models: Record<string, unknown> = {};
  for (const m of catalog.models.values()) {
    models[m.id] = { family: m.family, author: m.author, display_name: m.displayName, providers: m.routes.map(directoryRoute) };
  }
  return { models, generated_at: new Date(catalog.generatedAt).toISOString() };
}

function byokProviders(catalog: Catalog): ProviderEntry[] {
  return [...catalog.providers.values()].filter((p) => p.byok);
}

/** GET /v1/byok/providers (docs/contract.md "Inference and dialects"). */
export function renderByokProviders(catalog: Catalog) {
  const providers = byokProviders(catalog).map((p) => ({
    id: p.id,
    display_name: p.displayName,
    adapter: p.adapter,
    tiers: p.tiers.map((t) => t.name),
    default_tier: p.defaultTier,
    docs_url: p.docsUrl,
  }));
  return { providers, count: providers.length };
}

/** GET /v1/byok/providers/{provider}/tiers; undefined when the provider is unknown or takes no BYOK keys. */
export function renderByokTiers(catalog: Catalog, providerId: string) {
  const p = catalog.providers.get(providerId);
  if (!p || !p.byok) return undefined;
  const tiers = p.tiers.map((t) => ({ name: t.name, rpm: t.rpm, tpm: t.tpm, data_policy: t.dataPolicy, is_default: t.isDefault }));
  return { tiers, count: tiers.length };
}

export interface ModelViewOptions {
  /** Whether a provider can be routed to now: it has a platform credential, takes BYOK keys, or is local. */
  isRoutable: (providerId: string) => boolean;
}

export interface OpenAIModel {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
  context_window: number;
  supported_endpoints: string[];
  providers: { name: string; input_price: number; output_price: number; data_policy: string }[];
}

/** The routes a caller sees: those routable now. Every route serves both endpoints (routing/candidates.ts). */
export function viewRoutes(model: ModelEntry, opts: ModelViewOptions): RouteEntry[] {
  return model.routes.filter((r) => opts.isRoutable(r.provider));
}

/**
 * One Model (2.1) as a caller sees it: only routable routes count. Undefined when none is left, which the
 * model list omits and GET /v1/models/{id} answers with 404.
 */
export function renderModel(model: ModelEntry, opts: ModelViewOptions): OpenAIModel | undefined {
  const routes = viewRoutes(model, opts);
  if (routes.length === 0) return undefined;
  return {
    id: model.id,
    object: "model",
    created: model.created,
    owned_by: model.author || "switchyard",
    context_window: Math.max(...routes.map((r) => r.contextWindow)),
    // The gateway serves every model on both: translated to the wire each route speaks.
    supported_endpoints: ["chat_completions", "responses"],
    providers: routes.map((r) => ({ name: r.provider, input_price: r.inputPrice, output_price: r.outputPrice, data_policy: r.dataPolicy })),
  };
}

/** GET /v1/models: `{object: "list", data, catalog_version, catalog_age_seconds}`. */
export function renderModelList(catalog: Catalog, opts: ModelViewOptions & { now?: number }) {
  const data: OpenAIModel[] = [];
  for (const m of catalog.models.values()) {
    const view = renderModel(m, { isRoutable: opts.isRoutable });
    if (view) data.push(view);
  }
  const ageMs = (opts.now ?? Date.now()) - catalog.generatedAt;
  return {
    object: "list" as const,
    data,
    catalog_version: catalog.version,
    catalog_age_seconds: Math.max(0, Math.floor(ageMs / 1000)),
  };
}
