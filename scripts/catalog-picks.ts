// The curated allow-list behind the built-in catalog (see catalog-update.ts for the selection rule).
// Order matters: it is the catalog's display order, and an ambiguous short name resolves to the first
// model that claims it, so each vendor's flagship comes first.
import type { CapabilityKey, Endpoint } from "../src/catalog/types";

export interface Pick {
  /** Canonical `author/slug`. */
  id: string;
  family: string;
  name?: string;
  /** `[provider, provider model ID, price lookup key when it differs from the ID]`. */
  routes: [string, string, string?][];
  /** models.dev `provider:id` whose modalities, tool/reasoning flags and max output stand in for a model it lacks. */
  like?: string;
  input?: string[];
  caps?: Partial<Record<CapabilityKey, boolean>>;
  maxOutput?: number;
  /** Where no dataset dates the model: the vendor's announcement date. */
  released?: string;
  /**
   * The day the model entered this list (YYYY-MM-DD; for the first picks, from this file's git history):
   * its `created` date when neither a dataset nor `released` dates it. A new pick takes the day it is added.
   */
  added: string;
  endpoints?: Endpoint[];
  aliases?: string[];
}

const FW = "accounts/fireworks/models/";

export const PICKS: Pick[] = [
  // OpenAI: GPT-6 generation, GPT-5.5, small 5.4s, and the 4o/4.1/o-series workhorses.
  { id: "openai/gpt-6-astra", added: "2026-11-25", family: "gpt-6", like: "openai:gpt-5", routes: [["openai", "gpt-6-astra"]] },
  {
    id: "openai/gpt-6-sol",
    added: "2026-11-25",
    family: "gpt-6",
    like: "openai:gpt-5",
    routes: [
      ["openai", "gpt-6-sol"],
      ["openrouter", "openai/gpt-6-sol"],
    ],
  },
  {
    id: "openai/gpt-6-luna",
    added: "2026-11-25",
    family: "gpt-6",
    like: "openai:gpt-5-mini",
    routes: [
      ["openai", "gpt-6-luna"],
      ["openrouter", "openai/gpt-6-luna"],
    ],
  },
  {
    id: "openai/gpt-5.5",
    added: "2026-11-25",
    family: "gpt-5",
    like: "openai:gpt-5",
    routes: [
      ["openai", "gpt-5.5"],
      ["openrouter", "openai/gpt-5.5"],
    ],
  },
  // Pro models are served by OpenAI only through the Responses API.
  {
    id: "openai/gpt-5.5-pro",
    added: "2026-11-25",
    family: "gpt-5",
    like: "openai:gpt-5",
    endpoints: ["responses"],
    routes: [["openai", "gpt-5.5-pro"]],
  },
  {
    id: "openai/gpt-5.4-mini",
    added: "2026-11-25",
    family: "gpt-5",
    like: "openai:gpt-5-mini",
    routes: [
      ["openai", "gpt-5.4-mini"],
      ["openrouter", "openai/gpt-5.4-mini"],
    ],
  },
  {
    id: "openai/gpt-5.4-nano",
    added: "2026-11-25",
    family: "gpt-5",
    like: "openai:gpt-5-nano",
    routes: [
      ["openai", "gpt-5.4-nano"],
      ["openrouter", "openai/gpt-5.4-nano"],
    ],
  },
  {
    id: "openai/gpt-5",
    added: "2026-11-25",
    family: "gpt-5",
    routes: [
      ["openai", "gpt-5"],
      ["openrouter", "openai/gpt-5"],
    ],
  },
  {
    id: "openai/gpt-5-mini",
    added: "2026-11-25",
    family: "gpt-5",
    routes: [
      ["openai", "gpt-5-mini"],
      ["openrouter", "openai/gpt-5-mini"],
    ],
  },
  {
    id: "openai/gpt-4.1",
    added: "2026-11-25",
    family: "gpt-4.1",
    name: "GPT-4.1",
    routes: [
      ["openai", "gpt-4.1"],
      ["openrouter", "openai/gpt-4.1"],
    ],
  },
  {
    id: "openai/gpt-4.1-mini",
    added: "2026-11-25",
    family: "gpt-4.1",
    name: "GPT-4.1 mini",
    routes: [
      ["openai", "gpt-4.1-mini"],
      ["openrouter", "openai/gpt-4.1-mini"],
    ],
  },
  {
    id: "openai/gpt-4o",
    added: "2026-11-25",
    family: "gpt-4o",
    name: "GPT-4o",
    routes: [
      ["openai", "gpt-4o"],
      ["openrouter", "openai/gpt-4o"],
    ],
  },
  {
    id: "openai/gpt-4o-mini",
    added: "2026-11-25",
    family: "gpt-4o",
    name: "GPT-4o mini",
    routes: [
      ["openai", "gpt-4o-mini"],
      ["openrouter", "openai/gpt-4o-mini"],
    ],
  },
  {
    id: "openai/o3",
    added: "2026-11-25",
    family: "o3",
    routes: [
      ["openai", "o3"],
      ["openrouter", "openai/o3"],
    ],
  },
  {
    id: "openai/o4-mini",
    added: "2026-11-25",
    family: "o4",
    name: "o4-mini",
    routes: [
      ["openai", "o4-mini"],
      ["openrouter", "openai/o4-mini"],
    ],
  },
  {
    id: "openai/gpt-oss-120b",
    added: "2026-11-25",
    family: "gpt-oss",
    name: "gpt-oss-120b",
    routes: [
      ["groq", "openai/gpt-oss-120b"],
      ["together", "openai/gpt-oss-120b"],
      ["fireworks", `${FW}gpt-oss-120b`],
      ["openrouter", "openai/gpt-oss-120b"],
    ],
  },
  {
    id: "openai/gpt-oss-20b",
    added: "2026-11-25",
    family: "gpt-oss",
    name: "gpt-oss-20b",
    routes: [
      ["groq", "openai/gpt-oss-20b"],
      ["fireworks", `${FW}gpt-oss-20b`],
      ["openrouter", "openai/gpt-oss-20b:free"],
    ],
  },

  // Anthropic: the 5-series, Opus 4.8, and the 4.5 Sonnet/Haiku most clients still pin.
  {
    id: "anthropic/claude-fable-5-1",
    added: "2026-11-25",
    family: "claude-fable",
    like: "anthropic:claude-opus-4-1-20250805",
    routes: [
      ["anthropic", "claude-fable-5-1"],
      ["openrouter", "anthropic/claude-fable-5.1"],
    ],
  },
  {
    id: "anthropic/claude-opus-5-5",
    added: "2026-11-25",
    family: "claude-opus",
    like: "anthropic:claude-opus-4-1-20250805",
    routes: [
      ["anthropic", "claude-opus-5-5"],
      ["openrouter", "anthropic/claude-opus-5.5"],
    ],
  },
  {
    id: "anthropic/claude-sonnet-5",
    added: "2026-11-25",
    family: "claude-sonnet",
    like: "anthropic:claude-sonnet-4-20250514",
    routes: [
      ["anthropic", "claude-sonnet-5"],
      ["openrouter", "anthropic/claude-sonnet-5"],
    ],
  },
  {
    id: "anthropic/claude-opus-4-8",
    added: "2026-11-25",
    family: "claude-opus",
    like: "anthropic:claude-opus-4-1-20250805",
    routes: [
      ["anthropic", "claude-opus-4-8"],
      ["openrouter", "anthropic/claude-opus-4.8"],
    ],
  },
  {
    id: "anthropic/claude-sonnet-4-5",
    added: "2026-11-25",
    family: "claude-sonnet",
    like: "anthropic:claude-sonnet-4-20250514",
    released: "2025-09-29",
    // Anthropic's dated snapshot ID, the one its own model list reports and clients pin.
    aliases: ["claude-sonnet-4-5-20250929"],
    routes: [
      ["anthropic", "claude-sonnet-4-5"],
      ["openrouter", "anthropic/claude-sonnet-4.5"],
    ],
  },
  {
    id: "anthropic/claude-haiku-4-5",
    added: "2026-11-25",
    family: "claude-haiku",
    like: "anthropic:claude-sonnet-4-20250514",
    released: "2025-10-15",
    aliases: ["claude-haiku-4-5-20251001"],
    routes: [
      ["anthropic", "claude-haiku-4-5"],
      ["openrouter", "anthropic/claude-haiku-4.5"],
    ],
  },

  // Google: newest Flash, 3.1 Pro, the Lite tier, the 2.5 pair, and the open Gemma 4.
  {
    id: "google/gemini-3.8-flash",
    added: "2026-11-25",
    family: "gemini-flash",
    like: "google:gemini-2.5-flash",
    routes: [["gemini", "gemini-3.8-flash"]],
  },
  {
    id: "google/gemini-3.1-pro-preview",
    added: "2026-11-25",
    family: "gemini-pro",
    like: "google:gemini-2.5-pro",
    routes: [
      ["gemini", "gemini-3.1-pro-preview"],
      ["openrouter", "google/gemini-3.1-pro-preview"],
    ],
  },
  {
    id: "google/gemini-3.5-flash-lite",
    added: "2026-11-25",
    family: "gemini-flash-lite",
    like: "google:gemini-2.5-flash",
    routes: [["gemini", "gemini-3.5-flash-lite"]],
  },
  {
    id: "google/gemini-2.5-pro",
    added: "2026-11-25",
    family: "gemini-pro",
    routes: [
      ["gemini", "gemini-2.5-pro"],
      ["openrouter", "google/gemini-2.5-pro"],
    ],
  },
  {
    id: "google/gemini-2.5-flash",
    added: "2026-11-25",
    family: "gemini-flash",
    routes: [
      ["gemini", "gemini-2.5-flash"],
      ["openrouter", "google/gemini-2.5-flash"],
    ],
  },
  {
    id: "google/gemma-4-31b-it",
    added: "2026-11-25",
    family: "gemma",
    name: "Gemma 4 31B",
    like: "openrouter:google/gemma-3-27b-it",
    caps: { supports_json_mode: true, supports_web_search: false, supports_code_interpreter: false, supports_structured_output: false },
    routes: [
      ["gemini", "gemma-4-31b-it"],
      ["openrouter", "google/gemma-4-31b-it:free"],
    ],
  },

  // Mistral: Large 3, Medium 3.5, Small 4, and the coding and edge models.
  {
    id: "mistral/mistral-large-2512",
    added: "2026-11-25",
    family: "mistral-large",
    like: "mistral:mistral-medium-2508",
    aliases: ["mistral-large-latest"],
    routes: [
      ["mistral", "mistral-large-2512"],
      ["openrouter", "mistralai/mistral-large-2512"],
    ],
  },
  {
    id: "mistral/mistral-medium-3-5",
    added: "2026-11-25",
    family: "mistral-medium",
    like: "mistral:mistral-medium-2508",
    aliases: ["mistral-medium-latest"],
    routes: [
      ["mistral", "mistral-medium-latest", "mistral-medium-3-5"],
      ["openrouter", "mistralai/mistral-medium-3-5"],
    ],
  },
  {
    id: "mistral/mistral-small-2603",
    added: "2026-11-25",
    family: "mistral-small",
    like: "mistral:mistral-medium-2508",
    aliases: ["mistral-small-latest"],
    routes: [["mistral", "mistral-small-2603"]],
  },
  {
    id: "mistral/devstral-2512",
    added: "2026-11-25",
    family: "devstral",
    like: "mistral:devstral-medium-2507",
    routes: [
      ["mistral", "devstral-2512"],
      ["openrouter", "mistralai/devstral-2512"],
    ],
  },
  {
    id: "mistral/codestral-2508",
    added: "2026-11-25",
    family: "codestral",
    like: "mistral:codestral-latest",
    aliases: ["codestral-latest"],
    routes: [
      ["mistral", "codestral-2508"],
      ["openrouter", "mistralai/codestral-2508"],
    ],
  },
  {
    id: "mistral/ministral-8b-2512",
    added: "2026-11-25",
    family: "ministral",
    like: "mistral:ministral-8b-latest",
    routes: [
      ["mistral", "ministral-8b-2512"],
      ["openrouter", "mistralai/ministral-8b-2512"],
    ],
  },

  // DeepSeek V4, first-party and hosted.
  {
    id: "deepseek/deepseek-v4-pro",
    added: "2026-11-25",
    family: "deepseek-v4",
    like: "deepseek:deepseek-reasoner",
    routes: [
      ["deepseek", "deepseek-v4-pro"],
      ["fireworks", `${FW}deepseek-v4-pro`],
      ["openrouter", "deepseek/deepseek-v4-pro"],
    ],
  },
  {
    id: "deepseek/deepseek-v4-flash",
    added: "2026-11-25",
    family: "deepseek-v4",
    like: "deepseek:deepseek-reasoner",
    routes: [
      ["deepseek", "deepseek-v4-flash"],
      ["fireworks", `${FW}deepseek-v4-flash`],
      ["openrouter", "deepseek/deepseek-v4-flash"],
    ],
  },

  // xAI: Grok 4.6 and 4.3 (text and image in, per xAI), the fast and code models.
  {
    id: "xai/grok-4.6",
    added: "2026-11-25",
    family: "grok-4",
    like: "xai:grok-4",
    input: ["text", "image"],
    routes: [["xai", "grok-4.6"]],
  },
  {
    id: "xai/grok-4.3",
    added: "2026-11-25",
    family: "grok-4",
    like: "xai:grok-4",
    input: ["text", "image"],
    routes: [
      ["xai", "grok-4.3"],
      ["openrouter", "x-ai/grok-4.3"],
    ],
  },
  {
    id: "xai/grok-4-1-fast-reasoning",
    added: "2026-11-25",
    family: "grok-4",
    like: "xai:grok-4",
    aliases: ["grok-4.1-fast"],
    routes: [["xai", "grok-4-1-fast-reasoning"]],
  },
  {
    id: "xai/grok-code-fast-1",
    added: "2026-11-25",
    family: "grok-code",
    like: "xai:grok-3-mini",
    routes: [
      ["xai", "grok-code-fast-1"],
      ["openrouter", "x-ai/grok-code-fast-1"],
    ],
  },

  // Open-weight models on the hosting providers.
  {
    id: "meta-llama/llama-3.3-70b-instruct",
    added: "2026-11-25",
    family: "llama-3",
    name: "Llama 3.3 70B Instruct",
    routes: [
      ["groq", "llama-3.3-70b-versatile"],
      ["together", "meta-llama/Llama-3.3-70B-Instruct-Turbo"],
      ["openrouter", "meta-llama/llama-3.3-70b-instruct"],
    ],
  },
  {
    id: "meta-llama/llama-3.1-8b-instruct",
    added: "2026-11-25",
    family: "llama-3",
    name: "Llama 3.1 8B Instruct",
    routes: [
      ["groq", "llama-3.1-8b-instant"],
      ["fireworks", `${FW}llama-v3p1-8b-instruct`],
      ["openrouter", "meta-llama/llama-3.1-8b-instruct"],
    ],
  },
  {
    id: "meta-llama/llama-4-maverick",
    added: "2026-11-25",
    family: "llama-4",
    name: "Llama 4 Maverick",
    routes: [
      ["groq", "meta-llama/llama-4-maverick-17b-128e-instruct"],
      ["together", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8"],
      ["fireworks", `${FW}llama4-maverick-instruct-basic`],
      ["openrouter", "meta-llama/llama-4-maverick"],
    ],
  },
  {
    id: "moonshotai/kimi-k3",
    added: "2026-11-25",
    family: "kimi",
    name: "Kimi K3",
    like: "groq:moonshotai/kimi-k2-instruct-0905",
    routes: [
      ["fireworks", `${FW}kimi-k3`],
      ["openrouter", "moonshotai/kimi-k3"],
    ],
  },
  {
    id: "moonshotai/kimi-k2-instruct",
    added: "2026-11-25",
    family: "kimi",
    name: "Kimi K2 Instruct",
    routes: [
      ["groq", "moonshotai/kimi-k2-instruct"],
      ["together", "moonshotai/Kimi-K2-Instruct"],
      ["openrouter", "moonshotai/kimi-k2"],
    ],
  },
  {
    id: "qwen/qwen3.7-max",
    added: "2026-11-25",
    family: "qwen3",
    name: "Qwen3.7 Max",
    like: "openrouter:qwen/qwen3-max",
    routes: [["openrouter", "qwen/qwen3.7-max"]],
  },
  {
    id: "qwen/qwen3.7-plus",
    added: "2026-11-25",
    family: "qwen3",
    name: "Qwen3.7 Plus",
    like: "openrouter:qwen/qwen3-max",
    routes: [
      ["fireworks", `${FW}qwen3p7-plus`],
      ["openrouter", "qwen/qwen3.7-plus"],
    ],
  },
  {
    id: "qwen/qwen3-32b",
    added: "2026-11-25",
    family: "qwen3",
    name: "Qwen3 32B",
    routes: [
      ["groq", "qwen/qwen3-32b"],
      ["openrouter", "qwen/qwen3-32b"],
    ],
  },
  {
    id: "z-ai/glm-5.3",
    added: "2026-11-25",
    family: "glm",
    name: "GLM 5.3",
    like: "openrouter:z-ai/glm-4.5",
    routes: [["openrouter", "z-ai/glm-5.3"]],
  },
];
