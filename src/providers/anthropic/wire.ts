// Loose, partial shapes of Anthropic Messages API answers, and the mappings shared by the JSON and
// stream paths (usage, stop reason, error types).
import type { FinishReason, Usage } from "../types";
import { isRecord } from "../content-parts";
import { tokenCount } from "../usage";

export interface AnthropicUsageWire {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

export interface AnthropicContentBlockWire {
  type?: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  /** thinking blocks: the visible thinking and the signature that must come back with it. */
  thinking?: string;
  signature?: string;
  /** redacted_thinking blocks: the encrypted thinking. */
  data?: string;
  /** text blocks: what the text cites (char_location, page_location, web_search_result_location…). */
  citations?: unknown[] | null;
}

export interface AnthropicMessageWire {
  id?: string;
  type?: string;
  role?: string;
  model?: string;
  content?: AnthropicContentBlockWire[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: AnthropicUsageWire;
}

export interface AnthropicErrorWire {
  type?: string;
  message?: string;
}

/** Anthropic counts cache reads and writes apart from input_tokens; internally they are part of it. */
export function anthropicUsage(wire: AnthropicUsageWire | undefined): Usage {
  const cached = tokenCount(wire?.cache_read_input_tokens);
  const cacheWrite = tokenCount(wire?.cache_creation_input_tokens);
  return {
    inputTokens: tokenCount(wire?.input_tokens) + cached + cacheWrite,
    outputTokens: tokenCount(wire?.output_tokens),
    cachedTokens: cached,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: 0,
  };
}

export function anthropicFinishReason(stopReason: string | null | undefined, sawToolUse: boolean): FinishReason {
  switch (stopReason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop";
    default:
      return sawToolUse ? "tool_calls" : "stop";
  }
}

/** HTTP status Anthropic uses for each error type (for errors that arrive inside a 200 stream). */
const ERROR_TYPE_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export function anthropicErrorStatus(type: string | undefined): number {
  return (type !== undefined && ERROR_TYPE_STATUS[type]) || 500;
}

/** `{"type":"error","error":{"type":…,"message":…}}` → its parts. */
export function anthropicError(body: unknown): AnthropicErrorWire | undefined {
  if (!isRecord(body) || !isRecord(body.error)) return undefined;
  const { type, message } = body.error;
  return { type: typeof type === "string" ? type : undefined, message: typeof message === "string" ? message : undefined };
}
