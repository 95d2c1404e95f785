// Loose, partial shapes of OpenAI-compatible responses as they arrive on the wire. Every field is
// optional because vendors (Groq, Together, vLLM, Ollama…) omit different ones.
import type { Usage } from "../types";
import { tokenCount, zeroUsage } from "../usage";
import { isRecord } from "../content-parts";

export interface OpenAIUsageWire {
  prompt_tokens?: number;
  completion_tokens?: number;
  /** `cache_write_tokens`: OpenRouter's prompt tokens written to the cache (Anthropic, Gemini models). */
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  /** DeepSeek reports cache hits here instead of prompt_tokens_details. */
  prompt_cache_hit_tokens?: number;
}

export interface OpenAIToolCallWire {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

/** An answer's message; the reasoning fields are DeepSeek's (reasoning_content) and OpenRouter's (reasoning, reasoning_details). */
export interface OpenAIMessageWire {
  role?: string;
  content?: string | null;
  refusal?: string | null;
  tool_calls?: OpenAIToolCallWire[];
  reasoning_content?: string | null;
  reasoning?: string | null;
  reasoning_details?: unknown;
  annotations?: unknown;
}

export interface OpenAIChoiceWire {
  index?: number;
  message?: OpenAIMessageWire;
  delta?: { role?: string; content?: string | null; refusal?: string | null; tool_calls?: OpenAIToolCallWire[] };
  finish_reason?: string | null;
  logprobs?: unknown;
}

export interface OpenAIResponseWire {
  id?: string;
  created?: number;
  model?: string;
  choices?: OpenAIChoiceWire[];
  usage?: OpenAIUsageWire | null;
  system_fingerprint?: string | null;
  /** Groq puts the stream's usage here on the last chunk. */
  x_groq?: { usage?: OpenAIUsageWire };
  error?: unknown;
}

export function openAIUsage(wire: OpenAIUsageWire | null | undefined): Usage {
  if (!wire) return zeroUsage();
  return {
    inputTokens: tokenCount(wire.prompt_tokens),
    outputTokens: tokenCount(wire.completion_tokens),
    cachedTokens: tokenCount(wire.prompt_tokens_details?.cached_tokens ?? wire.prompt_cache_hit_tokens),
    cacheWriteTokens: tokenCount(wire.prompt_tokens_details?.cache_write_tokens),
    reasoningTokens: tokenCount(wire.completion_tokens_details?.reasoning_tokens),
  };
}

/** The error message in any of the shapes OpenAI-compatible servers use. */
export function openAIErrorMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const error = body.error;
  if (typeof error === "string") return error;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  if (typeof body.message === "string") return body.message;
  // FastAPI-based servers (some vLLM front-ends) answer {"detail": "..."}.
  if (typeof body.detail === "string") return body.detail;
  return undefined;
}
