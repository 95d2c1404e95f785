// Loose, partial shapes of Gemini (Generative Language API) answers and the mappings shared by the
// JSON and stream paths.
import type { FinishReason, Usage } from "../types";
import { isRecord } from "../content-parts";
import { tokenCount } from "../usage";

export interface GeminiPartWire {
  text?: string;
  /** Thought summaries are marked `thought: true`; they are reasoning, not part of the answer. */
  thought?: boolean;
  /** The model's reasoning state for this part, to be sent back on the same part next turn. */
  thoughtSignature?: string;
  functionCall?: { id?: string; name?: string; args?: unknown };
}

export interface GeminiGroundingChunkWire {
  web?: { uri?: string; title?: string };
  retrievedContext?: { uri?: string; title?: string };
  maps?: { uri?: string; title?: string };
}

export interface GeminiGroundingSupportWire {
  /** Offsets are UTF-8 bytes into the candidate's answer text (or into part `partIndex`). */
  segment?: { partIndex?: number; startIndex?: number; endIndex?: number; text?: string };
  groundingChunkIndices?: number[];
  confidenceScores?: number[];
}

export interface GeminiCitationSourceWire {
  startIndex?: number;
  endIndex?: number;
  uri?: string;
  title?: string;
  license?: string;
}

export interface GeminiCandidateWire {
  index?: number;
  content?: { role?: string; parts?: GeminiPartWire[] };
  finishReason?: string;
  groundingMetadata?: { groundingChunks?: GeminiGroundingChunkWire[]; groundingSupports?: GeminiGroundingSupportWire[] };
  citationMetadata?: { citationSources?: GeminiCitationSourceWire[] };
}

export interface GeminiUsageWire {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiResponseWire {
  candidates?: GeminiCandidateWire[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageWire;
  modelVersion?: string;
  responseId?: string;
  error?: unknown;
}

/** Gemini's candidatesTokenCount excludes thinking; internally reasoning is part of the output. */
export function geminiUsage(wire: GeminiUsageWire | undefined): Usage {
  const thoughts = tokenCount(wire?.thoughtsTokenCount);
  return {
    inputTokens: tokenCount(wire?.promptTokenCount) + tokenCount(wire?.toolUsePromptTokenCount),
    outputTokens: tokenCount(wire?.candidatesTokenCount) + thoughts,
    cachedTokens: tokenCount(wire?.cachedContentTokenCount),
    cacheWriteTokens: 0,
    reasoningTokens: thoughts,
  };
}

const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]);

export function geminiFinishReason(reason: string | undefined, sawToolCall: boolean): FinishReason {
  if (reason === "MAX_TOKENS") return "length";
  if (reason !== undefined && FILTERED.has(reason)) return "content_filter";
  // STOP, MALFORMED_FUNCTION_CALL, OTHER…: the turn ended; with function calls, it ended to call them.
  return sawToolCall ? "tool_calls" : "stop";
}

/**
 * Gemini has no tool call ids, yet clients echo ids back with the results: ids are derived from
 * the response id (or one random prefix per response) and the call's ordinal, so every chunk of
 * one stream and every choice of one answer agree.
 */
export function toolCallId(prefix: string, candidate: number, ordinal: number): string {
  return candidate === 0 ? `call_${prefix}_${ordinal}` : `call_${prefix}_${candidate}_${ordinal}`;
}

export function idPrefix(responseId: string | undefined): string {
  return responseId && responseId !== "" ? responseId : crypto.randomUUID().replaceAll("-", "").slice(0, 16);
}

export interface GeminiErrorWire {
  code?: number;
  message?: string;
  status?: string;
  details?: Record<string, unknown>[];
}

/** `{"error": {code, message, status, details}}`, sometimes wrapped in a one-element array. */
export function geminiError(body: unknown): GeminiErrorWire | undefined {
  const first = Array.isArray(body) ? body[0] : body;
  if (!isRecord(first) || !isRecord(first.error)) return undefined;
  const e = first.error;
  return {
    code: typeof e.code === "number" ? e.code : undefined,
    message: typeof e.message === "string" ? e.message : undefined,
    status: typeof e.status === "string" ? e.status : undefined,
    details: Array.isArray(e.details) ? e.details.filter(isRecord) : [],
  };
}

/** Gemini answers a bad key with 400 INVALID_ARGUMENT and this reason, not with 401. */
export function isInvalidKeyError(error: GeminiErrorWire | undefined): boolean {
  return (error?.details ?? []).some((d) => d.reason === "API_KEY_INVALID");
}

/** google.rpc.RetryInfo `retryDelay: "13s"` → milliseconds. */
export function retryDelayMs(error: GeminiErrorWire | undefined): number | undefined {
  for (const detail of error?.details ?? []) {
    const delay = detail.retryDelay;
    if (typeof delay !== "string" || !delay.endsWith("s")) continue;
    const seconds = Number(delay.slice(0, -1));
    if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  }
  return undefined;
}
