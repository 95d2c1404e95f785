// buildCatalog(): the built-in data plus the operator's config file → one read-only Catalog, built once at
// start-up.
//
// `catalog: "merge"` (default): built-in providers and models, then the file's. A file provider with a
// built-in ID merges over that row field by field (so `providers.openai: {adapter: "openai", base_url: …}`
// only moves OpenAI); a file model with a built-in ID replaces that model whole (docs/configuration.md).
// `catalog: "replace"`: only the file's providers and models. A file provider that names a built-in ID
// still inherits the built-in row's defaults (base URL, tiers, docs), since that is what naming it means.
import { createHash } from "node:crypto";
import type { FileConfig } from "../config/schema";
import { buildAliasIndex } from "./aliases";
import { BUILTIN_DATA, parseBuiltinData, type BuiltinDataT, type BuiltinModelT } from "./builtin-data";
import { modelFromConfig, providerFromConfig, withCredential } from "./config-entries";
import { BUILTIN_PROVIDERS } from "./providers";
import type { Capabilities, Catalog, ModelEntry, ProviderEntry, RouteEntry } from "./types";

export interface BuildCatalogInput {
  file: FileConfig;
  /** The `*_API_KEY` variables of the environment (Config.credentialEnv). */
  credentialEnv: Record<string, string>;
  /** Built-in data to use instead of the embedded file (tests). */
  builtin?: unknown;
  /** Clock for `generatedAt` in replace mode and config routes' `updated_at`; defaults to Date.now(). */
  now?: number;
}

function dateToUnix(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / 1000);
}

function builtinModel(m: BuiltinModelT, providers: ReadonlyMap<string, ProviderEntry>, updatedAt: string): ModelEntry {
  const capabilities = m.capabilities as Capabilities;
  const routes: RouteEntry[] = m.routes.map((r, i) => {
    const provider = providers.get(r.provider);
    if (!provider) throw new Error(`built-in catalog data: ${m.id}.routes[${i}].provider "${r.provider}" is not a built-in provider`);
    return {
      provider: r.provider,
      providerModelId: r.provider_model_id,
      inputPrice: r.input_price,
      outputPrice: r.output_price,
      cacheReadPrice: r.cache_read_price,
      cacheWritePrice: r.cache_write_price,
      contextWindow: r.context_window,
      maxOutputTokens: r.max_output_tokens,
      latencyHint: r.latency_hint,
      ttftHintMs: r.ttft_hint_ms,
      tpsHint: r.tps_hint,
      dataPolicy: provider.dataPolicy,
      endpoints: r.endpoints,
      capabilities,
      inputModalities: m.input_modalities,
      outputModalities: m.output_modalities,
      tools: r.tools,
      tiers: [
        {
          name: "standard",
          inputPrice: r.input_price,
          outputPrice: r.output_price,
          cacheReadPrice: r.cache_read_price,
          cacheWritePrice: r.cache_write_price,
          latencyHint: r.latency_hint,
          priceVariants: r.price_variants.map((v) => ({
            name: v.name,
            aboveInputTokens: v.above_input_tokens,
            inputPrice: v.input_price,
            outputPrice: v.output_price,
            cacheReadPrice: v.cache_read_price,
          })),
        },
      ],
      updatedAt,
    };
  });
  return {
    id: m.id,
    displayName: m.display_name,
    family: m.family,
    author: m.author,
    aliases: m.aliases,
    capabilities,
    inputModalities: m.input_modalities,
    outputModalities: m.output_modalities,
    // No dataset dates every model: the day it entered the catalog stands in, so none says 1970.
    created: dateToUnix(m.release_date ?? m.added),
    routes,
  };
}

function buildProviders(file: FileConfig, credentialEnv: Record<string, string>, replace: boolean): Map<string, ProviderEntry> {
  const builtins = new Map(BUILTIN_PROVIDERS.map((p) => [p.id, p]));
  const out = new Map<string, ProviderEntry>();
  if (!replace) for (const p of BUILTIN_PROVIDERS) out.set(p.id, withCredential(p, credentialEnv));
  for (const [id, cfg] of Object.entries(file.providers ?? {})) out.set(id, providerFromConfig(id, cfg, builtins.get(id), credentialEnv));
  return out;
}

/**
 * Hash of what the catalog says (providers, models, routes, prices), not of when it was loaded: route
 * `updatedAt` and platform credentials are left out, so the same data gives the same version on every
 * restart and every instance.
 */
function catalogVersion(providers: ReadonlyMap<string, ProviderEntry>, models: ReadonlyMap<string, ModelEntry>): string {
  const content = {
    providers: [...providers.values()].map(({ platformKey: _secret, ...rest }) => rest),
    models: [...models.values()].map((m) => ({ ...m, routes: m.routes.map(({ updatedAt: _t, ...rest }) => rest) })),
  };
  return createHash("sha256").update(JSON.stringify(content)).digest("hex").slice(0, 16);
}

export function buildCatalog(input: BuildCatalogInput): Catalog {
  const { file, credentialEnv } = input;
  const replace = file.catalog === "replace";
  const data: BuiltinDataT = parseBuiltinData(input.builtin ?? BUILTIN_DATA);
  const now = input.now ?? Date.now();
  const generatedAt = replace ? now : Date.parse(data.generated_at);

  const providers = buildProviders(file, credentialEnv, replace);
  const models = new Map<string, ModelEntry>();
  if (!replace) {
    const builtinProviders = new Map(BUILTIN_PROVIDERS.map((p) => [p.id, providers.get(p.id) ?? p]));
    for (const m of data.models) models.set(m.id, builtinModel(m, builtinProviders, data.generated_at));
  }
  const configUpdatedAt = new Date(now).toISOString();
  const configModels: ModelEntry[] = [];
  for (const [id, cfg] of Object.entries(file.models ?? {})) {
    const model = modelFromConfig(id, cfg, providers, configUpdatedAt);
    models.set(id, model); // same ID as a built-in: replaced in place, keeping the built-in's list position
    configModels.push(model);
  }

  // Config models claim ambiguous names before built-ins (aliases.ts).
  const configIds = new Set(configModels.map((m) => m.id));
  const index = buildAliasIndex([...configModels, ...[...models.values()].filter((m) => !configIds.has(m.id))]);
  return {
    providers,
    models,
    resolve: index.resolve,
    version: catalogVersion(providers, models),
    generatedAt,
  };
}
