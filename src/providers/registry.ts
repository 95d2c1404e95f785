// Wire protocol name → adapter: the only place that branches on the adapter name. Vendors are rows
// in the catalog that point at one of these.
import type { AdapterName } from "../catalog/types";
import type { ProviderAdapter } from "./types";
import { anthropicAdapter } from "./anthropic/adapter";
import { geminiAdapter } from "./gemini/adapter";
import { openAICompatibleAdapter } from "./openai-compatible/adapter";

const ADAPTERS: Record<AdapterName, ProviderAdapter> = {
  openai: openAICompatibleAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
};

export function adapterFor(name: AdapterName): ProviderAdapter {
  return ADAPTERS[name];
}
