// Wire protocol name → adapter: the only place that branches on the adapter name. Vendors are rows
// in the catalog that point at one of these.
import type { AdapterName, ProviderEntry, RouteEntry } from "../catalog/types";
import type { NativeAdapter, NativeWire, ProviderAdapter } from "./types";
import { anthropicAdapter } from "./anthropic/adapter";
import { geminiAdapter } from "./gemini/adapter";
import { openAICompatibleAdapter } from "./openai-compatible/adapter";
import { openAIResponsesAdapter } from "./openai-responses/adapter";
import { anthropicNativeAdapter } from "./anthropic/native";
import { openAIResponsesNativeAdapter } from "./openai-responses/native";
import { openAIChatNativeAdapter } from "./openai-compatible/native";

const ADAPTERS: Record<AdapterName, ProviderAdapter> = {
  openai: openAICompatibleAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
};

export function adapterFor(name: AdapterName): ProviderAdapter {
  return ADAPTERS[name];
}

/**
 * The adapter for one attempt. An OpenAI-protocol route served only on the Responses API (e.g.
 * gpt-5.5-pro, endpoints ["responses"]) speaks that protocol; so does a /v1/responses call to a provider
 * whose catalog entry supports the Responses API natively (it is passed to that API, not translated to
 * chat completions). Every other attempt speaks its provider's protocol.
 */
export function adapterForRoute(provider: ProviderEntry, route: RouteEntry, interfaceEndpoint?: string): ProviderAdapter {
  if (provider.adapter === "openai" && route.endpoints.includes("responses")) {
    if (!route.endpoints.includes("chat_completions")) return openAIResponsesAdapter;
    if (interfaceEndpoint === "responses" && provider.supportsResponses) return openAIResponsesAdapter;
  }
  return adapterFor(provider.adapter);
}

/**
 * The pass-through adapter when this route speaks the client's own dialect (`wire`): an Anthropic route
 * for Messages, a route on the Responses API for Responses, an OpenAI-compatible chat route for chat
 * completions; null when the call must be translated.
 */
export function nativeAdapterFor(provider: ProviderEntry, route: RouteEntry, wire: NativeWire): NativeAdapter | null {
  if (wire === "anthropic") return provider.adapter === "anthropic" ? anthropicNativeAdapter : null;
  if (wire === "chat")
    return adapterForRoute(provider, route, "chat_completions") === openAICompatibleAdapter ? openAIChatNativeAdapter : null;
  return adapterForRoute(provider, route, "responses") === openAIResponsesAdapter ? openAIResponsesNativeAdapter : null;
}
