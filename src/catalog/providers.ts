// The vendor table: every built-in provider is a row of data, not code. Adapters are per wire protocol
// (openai, anthropic, gemini); Groq, Together, DeepSeek, vLLM… reuse the OpenAI-compatible one.
// Base URLs follow docs/configuration.md: openai-style rows include the version, anthropic and gemini are API roots.
//
// Tiers are the provider's account tiers as published for its flagship model (requests and tokens per
// minute). Accounts differ per model and change over time, so these are defaults for BYOK keys that do not
// state their own limits, not promises. Data policies: `no_training` where API traffic is not used for
// training by default, `zdr` where nothing is retained by default, `none` where the provider may train on
// it (free tiers usually). Platform credentials come from `<ID>_API_KEY` (see build.ts).
import type { DataPolicy, ProviderEntry, TierEntry } from "./types";

/** docs/configuration.md defaults: a whole non-streaming attempt, first byte of a stream, gap between chunks. */
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 30_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_STREAM_TIMEOUT_MS = 600_000;

/** Routing priors before any measurement, per provider; a route may carry its own. */
export interface LatencyPrior {
  hint: "fast" | "normal" | "slow";
  ttftMs: number;
  tps: number;
}

export const LATENCY_HINTS = ["fast", "normal", "slow"] as const;

/**
 * What a route's `latency_hint` means before any measurement (docs/routing.md): a config route that names
 * a hint without `ttft_hint_ms` / `tps_hint` starts from these, unless its provider's own prior has that hint.
 */
export const LATENCY_HINT_PRIORS: Readonly<Record<LatencyPrior["hint"], LatencyPrior>> = {
  fast: { hint: "fast", ttftMs: 300, tps: 150 },
  normal: { hint: "normal", ttftMs: 800, tps: 60 },
  slow: { hint: "slow", ttftMs: 2_000, tps: 25 },
};

export const DEFAULT_LATENCY_PRIOR: LatencyPrior = LATENCY_HINT_PRIORS.normal;

/** `[name, rpm, tpm, data_policy?]`; the first row is the default tier. */
type TierRow = [string, number | null, number | null, DataPolicy?];

function tiers(policy: DataPolicy, rows: TierRow[]): TierEntry[] {
  return rows.map(([name, rpm, tpm, dataPolicy], i) => ({ name, rpm, tpm, dataPolicy: dataPolicy ?? policy, isDefault: i === 0 }));
}

interface Row {
  id: string;
  displayName: string;
  description: string;
  adapter: ProviderEntry["adapter"];
  baseUrl: string;
  dataPolicy: DataPolicy;
  byok: boolean;
  tiers: TierEntry[];
  docsUrl: string;
  supportsResponses?: boolean;
  local?: boolean;
  chatReasoning?: ProviderEntry["chatReasoning"];
  cacheControl?: boolean;
  latency: LatencyPrior;
}

const ROWS: Row[] = [
  {
    id: "openai",
    displayName: "OpenAI",
    description: "GPT and o-series models from OpenAI.",
    adapter: "openai",
    baseUrl: "https://api.openai.com/v1",
    dataPolicy: "no_training",
    byok: true,
    supportsResponses: true,
    docsUrl: "https://platform.openai.com/docs/models",
    tiers: tiers("no_training", [
      ["tier-1", 500, 30_000],
      ["tier-2", 5_000, 450_000],
      ["tier-3", 5_000, 800_000],
      ["tier-4", 10_000, 2_000_000],
      ["tier-5", 10_000, 30_000_000],
    ]),
    latency: { hint: "normal", ttftMs: 600, tps: 80 },
  },
  {
    id: "anthropic",
    displayName: "Anthropic",
    description: "Claude models through Anthropic's Messages API.",
    adapter: "anthropic",
    baseUrl: "https://api.anthropic.com",
    dataPolicy: "no_training",
    byok: true,
    docsUrl: "https://docs.anthropic.com/en/docs/about-claude/models",
    tiers: tiers("no_training", [
      ["tier-1", 50, 30_000],
      ["tier-2", 1_000, 450_000],
      ["tier-3", 2_000, 800_000],
      ["tier-4", 4_000, 2_000_000],
    ]),
    latency: { hint: "normal", ttftMs: 700, tps: 70 },
  },
  {
    id: "gemini",
    displayName: "Google Gemini",
    description: "Gemini models through the Google Generative Language API.",
    adapter: "gemini",
    baseUrl: "https://generativelanguage.googleapis.com",
    dataPolicy: "no_training",
    byok: true,
    docsUrl: "https://ai.google.dev/gemini-api/docs/models",
    // The free tier's prompts may be used to improve Google's products; paid tiers are not.
    tiers: tiers("no_training", [
      ["free", 10, 250_000, "none"],
      ["tier-1", 1_000, 1_000_000],
      ["tier-2", 2_000, 3_000_000],
      ["tier-3", 4_000, 8_000_000],
    ]),
    latency: { hint: "normal", ttftMs: 600, tps: 150 },
  },
  {
    id: "mistral",
    displayName: "Mistral AI",
    description: "Mistral's models on La Plateforme.",
    adapter: "openai",
    baseUrl: "https://api.mistral.ai/v1",
    dataPolicy: "no_training",
    byok: true,
    docsUrl: "https://docs.mistral.ai/getting-started/models/",
    tiers: tiers("no_training", [
      ["free", 60, 500_000, "none"],
      ["scale", 360, 2_000_000],
    ]),
    latency: { hint: "normal", ttftMs: 450, tps: 100 },
  },
  {
    id: "groq",
    displayName: "Groq",
    description: "Open-weight models on Groq's LPU inference.",
    adapter: "openai",
    baseUrl: "https://api.groq.com/openai/v1",
    dataPolicy: "no_training",
    byok: true,
    docsUrl: "https://console.groq.com/docs/models",
    tiers: tiers("no_training", [
      ["free", 30, 6_000],
      ["developer", 1_000, 300_000],
    ]),
    latency: { hint: "fast", ttftMs: 250, tps: 450 },
  },
  {
    id: "deepseek",
    displayName: "DeepSeek",
    description: "DeepSeek's own API for its V-series models.",
    adapter: "openai",
    baseUrl: "https://api.deepseek.com/v1",
    dataPolicy: "none",
    byok: true,
    docsUrl: "https://api-docs.deepseek.com/quick_start/pricing",
    // DeepSeek publishes no fixed rate limits; it throttles dynamically.
    tiers: tiers("none", [["standard", null, null]]),
    // Thinking mode with tools wants the earlier turns' reasoning back as reasoning_content.
    chatReasoning: "reasoning_content",
    latency: { hint: "slow", ttftMs: 1_200, tps: 40 },
  },
  {
    id: "together",
    displayName: "Together AI",
    description: "Open-weight models on Together's serverless endpoints.",
    adapter: "openai",
    baseUrl: "https://api.together.xyz/v1",
    dataPolicy: "no_training",
    byok: true,
    docsUrl: "https://docs.together.ai/docs/serverless-models",
    tiers: tiers("no_training", [
      ["tier-1", 600, 180_000],
      ["tier-2", 1_800, 250_000],
      ["tier-3", 3_000, 500_000],
      ["tier-4", 4_500, 1_000_000],
      ["tier-5", 6_000, 2_000_000],
    ]),
    latency: { hint: "normal", ttftMs: 450, tps: 120 },
  },
  {
    id: "fireworks",
    displayName: "Fireworks AI",
    description: "Open-weight models on Fireworks' serverless inference.",
    adapter: "openai",
    baseUrl: "https://api.fireworks.ai/inference/v1",
    dataPolicy: "zdr",
    byok: true,
    docsUrl: "https://fireworks.ai/models",
    tiers: tiers("zdr", [
      ["standard", 600, null],
      ["spend-50", 6_000, null],
    ]),
    latency: { hint: "fast", ttftMs: 350, tps: 180 },
  },
  {
    id: "xai",
    displayName: "xAI",
    description: "Grok models from xAI.",
    adapter: "openai",
    baseUrl: "https://api.x.ai/v1",
    dataPolicy: "no_training",
    byok: true,
    docsUrl: "https://docs.x.ai/docs/models",
    tiers: tiers("no_training", [
      ["tier-0", 60, 100_000],
      ["tier-1", 480, 2_000_000],
      ["tier-2", 1_200, 4_000_000],
    ]),
    latency: { hint: "normal", ttftMs: 700, tps: 90 },
  },
  {
    id: "openrouter",
    displayName: "OpenRouter",
    description: "One API in front of many providers' models.",
    adapter: "openai",
    baseUrl: "https://openrouter.ai/api/v1",
    dataPolicy: "no_training",
    byok: true,
    docsUrl: "https://openrouter.ai/models",
    // Limits follow the account's credit balance; free models have their own daily cap.
    tiers: tiers("no_training", [
      ["paid", null, null],
      ["free", 20, null, "none"],
    ]),
    // Its chat API round-trips reasoning_details (any family, signatures included) and passes cache_control to Anthropic and Gemini.
    chatReasoning: "reasoning_details",
    cacheControl: true,
    latency: { hint: "normal", ttftMs: 850, tps: 70 },
  },
  {
    id: "ollama",
    displayName: "Ollama",
    description: "Models served by a local Ollama; point base_url at it in the config file.",
    adapter: "openai",
    baseUrl: "http://127.0.0.1:11434/v1",
    dataPolicy: "zdr",
    byok: false,
    local: true,
    docsUrl: "https://github.com/ollama/ollama/blob/main/docs/openai.md",
    tiers: [],
    latency: { hint: "normal", ttftMs: 400, tps: 40 },
  },
  {
    id: "vllm",
    displayName: "vLLM",
    description: "Models served by a vLLM OpenAI-compatible server.",
    adapter: "openai",
    baseUrl: "http://127.0.0.1:8000/v1",
    dataPolicy: "zdr",
    byok: false,
    local: true,
    docsUrl: "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html",
    tiers: [],
    latency: { hint: "fast", ttftMs: 200, tps: 100 },
  },
  {
    id: "lmstudio",
    displayName: "LM Studio",
    description: "Models served by LM Studio's local server.",
    adapter: "openai",
    baseUrl: "http://127.0.0.1:1234/v1",
    dataPolicy: "zdr",
    byok: false,
    local: true,
    docsUrl: "https://lmstudio.ai/docs/app/api/endpoints/openai",
    tiers: [],
    latency: { hint: "normal", ttftMs: 400, tps: 40 },
  },
];

/** `OPENAI_API_KEY`, `LM_STUDIO…`: the provider ID upper-cased, `-` and `.` as `_`, then `_API_KEY`. */
export function defaultApiKeyEnv(providerId: string): string {
  return `${providerId.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY`;
}

function toEntry(row: Row): ProviderEntry {
  return {
    id: row.id,
    displayName: row.displayName,
    description: row.description,
    icon: `https://models.dev/logos/${row.id === "gemini" ? "google" : row.id}.svg`,
    adapter: row.adapter,
    baseUrl: row.baseUrl,
    dataPolicy: row.dataPolicy,
    byok: row.byok,
    tiers: row.tiers,
    defaultTier: row.tiers.find((t) => t.isDefault)?.name ?? null,
    docsUrl: row.docsUrl,
    apiKeyEnv: defaultApiKeyEnv(row.id),
    platformKey: null,
    timeoutMs: row.local ? 300_000 : DEFAULT_TIMEOUT_MS,
    firstByteTimeoutMs: DEFAULT_FIRST_BYTE_TIMEOUT_MS,
    idleTimeoutMs: DEFAULT_IDLE_TIMEOUT_MS,
    connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
    streamTimeoutMs: row.local ? 1_800_000 : DEFAULT_STREAM_TIMEOUT_MS,
    supportsResponses: row.supportsResponses ?? false,
    local: row.local ?? false,
    ...(row.chatReasoning !== undefined ? { chatReasoning: row.chatReasoning } : {}),
    ...(row.cacheControl === true ? { cacheControl: true } : {}),
  };
}

/** The built-in providers, in display order (first-party vendors first, local servers last). */
export const BUILTIN_PROVIDERS: readonly ProviderEntry[] = ROWS.map(toEntry);

export const PROVIDER_LATENCY_PRIORS: ReadonlyMap<string, LatencyPrior> = new Map(ROWS.map((r) => [r.id, r.latency]));
