// The in-memory catalog: providers (vendors are rows), canonical models and their routes.
// Built once at start-up from the built-in data and the operator's config file; read-only after.
// Prices are USD per one million tokens, as providers publish them.

export type DataPolicy = "none" | "no_training" | "zdr";
export type AdapterName = "openai" | "anthropic" | "gemini";
export type Endpoint = "chat_completions" | "responses";
/** The assistant-message field a chat-completions vendor reads earlier turns' reasoning from. */
export type ChatReasoning = "reasoning_details" | "reasoning_content";

export const CAPABILITY_KEYS = [
  "supports_tools",
  "supports_vision",
  "supports_json_mode",
  "supports_reasoning",
  "supports_streaming",
  "supports_web_search",
  "supports_computer_use",
  "supports_prompt_caching",
  "supports_code_interpreter",
  "supports_structured_output",
] as const;
export type CapabilityKey = (typeof CAPABILITY_KEYS)[number];
export type Capabilities = Record<CapabilityKey, boolean>;

export interface TierEntry {
  name: string;
  rpm: number | null;
  tpm: number | null;
  dataPolicy: DataPolicy;
  isDefault: boolean;
}

export interface ProviderEntry {
  id: string;
  displayName: string;
  description: string;
  icon: string;
  adapter: AdapterName;
  /** openai: includes the version (…/v1); anthropic and gemini: the API root (docs/configuration.md). */
  baseUrl: string;
  dataPolicy: DataPolicy;
  byok: boolean;
  tiers: TierEntry[];
  defaultTier: string | null;
  docsUrl: string;
  /** Name of the env var holding the platform credential, e.g. OPENAI_API_KEY. */
  apiKeyEnv: string;
  /** The platform credential, resolved at start-up (config api_key, api_key_env or <ID>_API_KEY). */
  platformKey: string | null;
  timeoutMs: number;
  /** Until the upstream's response headers arrive (connection + request accepted). */
  connectTimeoutMs: number;
  /** Until a stream's first content event. */
  firstByteTimeoutMs: number;
  /** Between two stream events. */
  idleTimeoutMs: number;
  /** A whole stream, however lively. */
  streamTimeoutMs: number;
  /** Accepts the Responses API natively (passed through instead of translated). */
  supportsResponses: boolean;
  /** True for local servers (Ollama, vLLM, LM Studio) that need no credential. */
  local: boolean;
  /**
   * What a chat-completions vendor takes back of earlier turns' reasoning: OpenRouter's reasoning_details
   * (every family's entries, signatures included), DeepSeek's reasoning_content (the text); absent: none.
   */
  chatReasoning?: ChatReasoning;
  /** A chat-completions vendor that honours Anthropic's cache_control markers (OpenRouter); absent: false. */
  cacheControl?: boolean;
}

/** A price that applies instead of the tier's base price above an input size (long-context pricing). */
export interface PriceVariant {
  name: string;
  /** Applies when the prompt has more input tokens than this. */
  aboveInputTokens: number;
  inputPrice: number;
  outputPrice: number;
  cacheReadPrice: number | null;
}

export interface PriceTier {
  name: string;
  inputPrice: number;
  outputPrice: number;
  cacheReadPrice: number | null;
  cacheWritePrice: number | null;
  latencyHint: string;
  /** Long-context (or other) variants of this tier's prices; absent means none. */
  priceVariants?: PriceVariant[];
}

export interface RouteEntry {
  provider: string;
  providerModelId: string;
  inputPrice: number;
  outputPrice: number;
  cacheReadPrice: number | null;
  cacheWritePrice: number | null;
  contextWindow: number;
  maxOutputTokens: number;
  latencyHint: string;
  /** Prior for time to first token before any measurement, ms. */
  ttftHintMs: number;
  /** Prior for output tokens per second before any measurement. */
  tpsHint: number;
  dataPolicy: DataPolicy;
  endpoints: Endpoint[];
  capabilities: Capabilities;
  inputModalities: string[];
  outputModalities: string[];
  tools: string[];
  tiers: PriceTier[];
  updatedAt: string;
}

export interface ModelEntry {
  id: string;
  displayName: string;
  family: string;
  author: string;
  aliases: string[];
  capabilities: Capabilities;
  inputModalities: string[];
  outputModalities: string[];
  /** Unix seconds; the model's release date where known. */
  created: number;
  routes: RouteEntry[];
}

export interface Catalog {
  providers: ReadonlyMap<string, ProviderEntry>;
  models: ReadonlyMap<string, ModelEntry>;
  /** Canonical ID, alias, provider model ID or short name → model; undefined when unknown. */
  resolve(idOrAlias: string): ModelEntry | undefined;
  /** Hash of the catalog content: stable across restarts with the same data. */
  version: string;
  /** When the catalog data was generated (ms since epoch). */
  generatedAt: number;
}
