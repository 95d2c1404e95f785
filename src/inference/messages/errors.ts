// /v1/messages answers errors in Anthropic's shape (docs/contract.md "Upstreams, errors and timeouts") so that the Anthropic SDK raises
// its own typed errors. The HTTP status still comes from our one code table; only the body differs.
import { ERROR_TABLE, type ApiError, type ErrorCode } from "../../http/errors";

export type AnthropicErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "api_error"
  | "overloaded_error";

export const ANTHROPIC_ERROR_TYPE: Record<ErrorCode, AnthropicErrorType> = {
  invalid_request: "invalid_request_error",
  invalid_parameter: "invalid_request_error",
  invalid_provider_credentials: "invalid_request_error",
  no_eligible_route: "invalid_request_error",
  invalid_api_key: "authentication_error",
  insufficient_scope: "permission_error",
  model_not_found: "not_found_error",
  not_found: "not_found_error",
  budget_exists: "invalid_request_error",
  idempotency_conflict: "invalid_request_error",
  idempotency_in_progress: "invalid_request_error",
  request_too_large: "request_too_large",
  validation_error: "invalid_request_error",
  rate_limit_exceeded: "rate_limit_error",
  budget_exceeded: "rate_limit_error",
  insufficient_credits: "rate_limit_error",
  internal_error: "api_error",
  provider_error: "api_error",
  provider_validation_unavailable: "api_error",
  // Anthropic's 529 "overloaded" is what a client retries later; "no route can serve now" is that.
  no_provider_available: "overloaded_error",
  service_unavailable: "overloaded_error",
  provider_timeout: "api_error",
};

export interface AnthropicErrorBody {
  type: "error";
  error: { type: AnthropicErrorType; message: string };
  request_id?: string;
}

export function anthropicErrorType(code: string): AnthropicErrorType {
  return code in ANTHROPIC_ERROR_TYPE ? ANTHROPIC_ERROR_TYPE[code as ErrorCode] : "api_error";
}

export function anthropicErrorBody(code: string, message: string, requestId?: string): AnthropicErrorBody {
  const body: AnthropicErrorBody = { type: "error", error: { type: anthropicErrorType(code), message } };
  if (requestId) body.request_id = requestId;
  return body;
}

/** An ApiError as an Anthropic-shaped Response: our status and headers (Retry-After, X-Request-ID). */
export function anthropicErrorResponse(err: ApiError, requestId?: string): Response {
  const headers: Record<string, string> = { "content-type": "application/json", ...(err.extra.headers ?? {}) };
  if (err.extra.retryAfterSeconds !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(err.extra.retryAfterSeconds)));
  if (requestId) {
    headers["x-request-id"] = requestId;
    // The Anthropic SDK reads this one into `error.requestID`.
    headers["request-id"] = requestId;
  }
  return new Response(JSON.stringify(anthropicErrorBody(err.code, err.message, requestId)), {
    status: ERROR_TABLE[err.code].status,
    headers,
  });
}
