// Loose, partial shapes of OpenAI Responses API objects as they arrive on the wire, and the mappings
// shared by the JSON and stream paths (usage, finish reason, error status). Every field is optional:
// the stream's `response.created` carries a response with no output yet, and other servers that
// speak this protocol omit different fields.
import type { FinishReason, Usage } from "../types";
import { isRecord } from "../content-parts";
import { tokenCount } from "../usage";

export interface ResponsesUsageWire {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

export interface ResponsesContentWire {
  type?: string;
  text?: string;
  refusal?: string;
  /** An output_text part's citations (url_citation, file_citation, …). */
  annotations?: unknown[];
}

/** One `output` item: a message, a function call, reasoning, or a hosted tool's item (ignored). */
export interface ResponsesOutputItemWire {
  type?: string;
  id?: string;
  role?: string;
  content?: ResponsesContentWire[];
  call_id?: string;
  name?: string;
  arguments?: string;
  /** A reasoning item's summary parts ({type: "summary_text", text}). */
  summary?: { type?: string; text?: string }[];
  /** A reasoning item's opaque state (asked for with include: ["reasoning.encrypted_content"]). */
  encrypted_content?: string | null;
}

export interface ResponsesErrorWire {
  code?: string | null;
  message?: string;
}

export interface ResponseObjectWire {
  id?: string;
  object?: string;
  created_at?: number;
  model?: string;
  status?: string;
  output?: ResponsesOutputItemWire[];
  incomplete_details?: { reason?: string } | null;
  error?: ResponsesErrorWire | null;
  usage?: ResponsesUsageWire | null;
}

/** Responses input_tokens already include the cached ones, as the internal convention wants. */
export function responsesUsage(wire: ResponsesUsageWire | null | undefined): Usage {
  return {
    inputTokens: tokenCount(wire?.input_tokens),
    outputTokens: tokenCount(wire?.output_tokens),
    cachedTokens: tokenCount(wire?.input_tokens_details?.cached_tokens),
    cacheWriteTokens: tokenCount(wire?.input_tokens_details?.cache_write_tokens),
    reasoningTokens: tokenCount(wire?.output_tokens_details?.reasoning_tokens),
  };
}

/**
 * A finished response's status → the chat finish reason. An incomplete response without a known
 * reason was still cut short, so it reports "length" rather than a clean "stop".
 */
export function responsesFinishReason(response: ResponseObjectWire, sawFunctionCall: boolean): FinishReason {
  if (response.status === "incomplete") {
    return response.incomplete_details?.reason === "content_filter" ? "content_filter" : "length";
  }
  return sawFunctionCall ? "tool_calls" : "stop";
}

/** Error codes (from `response.failed` and `error` events) that are the request's fault. */
const CLIENT_ERROR_CODES = new Set([
  "invalid_prompt",
  "invalid_request_error",
  "context_length_exceeded",
  "bio_policy",
  "data_residency_mismatch",
  "invalid_image",
  "invalid_image_format",
  "invalid_base64_image",
  "invalid_image_url",
  "image_too_large",
  "image_too_small",
  "image_parse_error",
  "image_content_policy_violation",
  "invalid_image_mode",
  "image_file_too_large",
  "unsupported_image_media_type",
  "empty_image_file",
  "failed_to_download_image",
  "image_file_not_found",
]);

/**
 * The HTTP status an in-stream error code stands for, so it gets the same retry semantics as the
 * equivalent non-2xx answer. Unknown codes count as a server error: another provider may succeed.
 */
export function responsesErrorStatus(code: string | null | undefined): number {
  if (code === "rate_limit_exceeded" || code === "insufficient_quota") return 429;
  if (code === "vector_store_timeout") return 504;
  if (typeof code === "string" && CLIENT_ERROR_CODES.has(code)) return 400;
  return 500;
}

/**
 * The error of a `response.failed` response or an `error` event. OpenAI's event puts code and
 * message at the top level; some compatible servers nest them under `error`.
 */
export function responsesError(body: unknown): ResponsesErrorWire | undefined {
  if (!isRecord(body)) return undefined;
  const source = isRecord(body.error) ? body.error : body;
  const code = typeof source.code === "string" ? source.code : typeof source.type === "string" ? source.type : null;
  const message = typeof source.message === "string" ? source.message : undefined;
  if (code === null && message === undefined) return undefined;
  return { code, message };
}
