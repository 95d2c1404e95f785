// Wire protocol name → adapter: the only place that branches on the adapter name. Vendors are rows
// in the catalog that point at one of these.
import type { AdapterName, ProviderEntry, RouteEntry } from "../catalog/types";
import type { ProviderAdapter } from "./types";
import { anthropicAdapter } from "./anthropic/adapter";
import { geminiAdapter } from "./gemini/adapter";
import { openAICompatibleAdapter } from "./openai-compatible/adapter";
import { openAIResponsesAdapter } from "./openai-responses/adapter";

const ADAPTERS: Record<AdapterName, ProviderAdapter> = {
  openai: openAICompatibleAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
};

export function adapterFor(name: AdapterName): ProviderAdapter {
  return ADAPTERS[name];
}

/**
 * The adapter for one route: an OpenAI-protocol route served only on the Responses API (e.g.
 * gpt-5.5-pro, endpoints ["responses"]) speaks that protocol; every other route its provider's.
 */
export function adapterForRoute(provider: ProviderEntry, route: RouteEntry): ProviderAdapter {
  if (provider.adapter === "openai" && route.endpoints.includes("responses") && !route.endpoints.includes("chat_completions")) {
    return openAIResponsesAdapter;
  }
  return adapterFor(provider.adapter);
}
