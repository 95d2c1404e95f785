// One closed set of error codes, one code → status/type table, one envelope (docs/contract.md "Upstreams, errors and timeouts").
// Domain code returns or throws ApiError with a code; the edge renders it. Unknown errors become a
// fixed generic 500 body and their details go to the log with the request id.

export const ERROR_TABLE = {
  invalid_request: { status: 400, type: "invalid_request_error", retryable: false },
  invalid_parameter: { status: 400, type: "invalid_request_error", retryable: false },
  invalid_provider_credentials: { status: 400, type: "invalid_request_error", retryable: false },
  no_eligible_route: { status: 400, type: "invalid_request_error", retryable: false },
  invalid_api_key: { status: 401, type: "authentication_error", retryable: false },
  insufficient_scope: { status: 403, type: "permission_error", retryable: false },
  model_not_found: { status: 404, type: "invalid_request_error", retryable: false },
  not_found: { status: 404, type: "invalid_request_error", retryable: false },
  budget_exists: { status: 409, type: "conflict_error", retryable: false },
  idempotency_conflict: { status: 409, type: "conflict_error", retryable: false },
  idempotency_in_progress: { status: 409, type: "conflict_error", retryable: true },
  request_too_large: { status: 413, type: "invalid_request_error", retryable: false },
  validation_error: { status: 422, type: "invalid_request_error", retryable: false },
  rate_limit_exceeded: { status: 429, type: "rate_limit_error", retryable: true },
  budget_exceeded: { status: 429, type: "rate_limit_error", retryable: false },
  insufficient_credits: { status: 429, type: "insufficient_quota", retryable: false },
  internal_error: { status: 500, type: "api_error", retryable: true },
  provider_error: { status: 502, type: "upstream_error", retryable: true },
  provider_validation_unavailable: { status: 502, type: "upstream_error", retryable: true },
  no_provider_available: { status: 503, type: "upstream_error", retryable: true },
  service_unavailable: { status: 503, type: "api_error", retryable: true },
  provider_timeout: { status: 504, type: "upstream_error", retryable: true },
} as const satisfies Record<string, { status: number; type: string; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** One line per code for the served error reference (/docs/errors). */
export const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  invalid_request: "The body is not valid JSON, or the request as a whole cannot be read.",
  invalid_parameter: "A field has a wrong type or value; `param` names its path (e.g. `gateway.metadata.tags[3]`).",
  invalid_provider_credentials: "The provider rejected the BYOK secret; nothing was saved.",
  no_eligible_route:
    "Routing constraints (allow/exclude lists, only_byok/only_platform, data policy, price or TTFT ceiling, throughput or success-rate floor, require_parameters) left no route.",
  invalid_api_key: "The API key is missing, malformed, unknown, expired or revoked.",
  insufficient_scope: "The API key lacks a scope this route requires.",
  model_not_found: "No model with this ID or alias is in the catalog.",
  not_found: "The route or resource does not exist (or belongs to another workspace).",
  budget_exists: "A budget already exists for this scope and period.",
  idempotency_conflict: "This Idempotency-Key was used before with a different body.",
  idempotency_in_progress: "A request with this Idempotency-Key is still running; retry shortly.",
  request_too_large:
    "The request body is over the route's size limit (`max_request_body_mb`: 20 MB for inference, 1 MB for management by default); counted as it arrives, so a body without Content-Length is cut off at the limit.",
  validation_error: "The budget's limit, scope or period is not valid.",
  rate_limit_exceeded: "Too many requests in this rate class; wait for Retry-After seconds.",
  budget_exceeded: "An enforced budget's limit for the current period has been reached.",
  insufficient_credits: "The workspace's credit balance is not positive.",
  internal_error: "An unexpected error; the request id identifies it in the server log.",
  provider_error:
    "The upstream provider failed or answered with an error (a redirect included: redirects are not followed, the message names where it points).",
  provider_validation_unavailable: "The provider could not be reached to validate a BYOK secret; nothing was saved. Retry.",
  no_provider_available: "Routes exist but none can serve now (open circuits, or every attempt failed).",
  service_unavailable:
    "The gateway cannot admit the call now (its database is unreachable and the call needs it, or request recording is backed up); retry after Retry-After seconds.",
  provider_timeout: "The upstream provider did not answer in time.",
};

export interface ErrorBody {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: ErrorCode;
    doc_url: string;
    retryable: boolean;
    provider?: string;
  };
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: {
      param?: string | null;
      provider?: string;
      retryAfterSeconds?: number;
      headers?: Record<string, string>;
      /** The provider's own answer to a native call, sent as it is (edge.ts). */
      native?: { status: number; body: string };
    } = {},
  ) {
    super(message);
    this.status = ERROR_TABLE[code].status;
  }

  body(): ErrorBody {
    return errorBody(this.code, this.message, this.extra);
  }
}

export function errorBody(code: ErrorCode, message: string, extra: { param?: string | null; provider?: string } = {}): ErrorBody {
  const row = ERROR_TABLE[code];
  const error: ErrorBody["error"] = {
    message,
    type: row.type,
    param: extra.param ?? null,
    code,
    doc_url: `/docs/errors#${code}`,
    retryable: row.retryable,
  };
  if (extra.provider) error.provider = extra.provider;
  return { error };
}

/** Renders an ApiError as a Response with the envelope and its headers (Retry-After included). */
export function errorResponse(err: ApiError, requestId?: string): Response {
  const headers: Record<string, string> = { "content-type": "application/json", ...(err.extra.headers ?? {}) };
  if (err.extra.retryAfterSeconds !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(err.extra.retryAfterSeconds)));
  if (requestId) headers["x-request-id"] = requestId;
  return new Response(JSON.stringify(err.body()), { status: err.status, headers });
}
