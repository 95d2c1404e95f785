// Shared mapping of an upstream non-2xx answer to an UpstreamError. Each adapter extracts the message
// from its own error JSON shape; the status rules are the same for every provider (docs/contract.md "Upstreams, errors and timeouts"):
// 408/409/429/5xx may go to another provider, 400/404/422 are the caller's fault, 401/403 are the
// gateway's credential problem (another provider may still work, so retryable).
import type { UpstreamError, UpstreamErrorCode } from "./types";

const MAX_MESSAGE_CHARS = 500;

/**
 * Every upstream error (a non-2xx answer or a mid-stream error event) becomes an UpstreamError here.
 * `credential` is the key the attempt sent (platform or BYOK): it is cut out of the message exactly,
 * whatever the provider wrapped it in, before the heuristic below and before the message is shortened.
 */
export function classifyStatus(
  status: number,
  message: string,
  headers: Headers,
  credential: string | null = null,
  now: number = Date.now(),
): UpstreamError {
  const { code, retryable } = statusRule(status);
  if (status >= 300 && status < 400) message = redirectMessage(status, headers.get("location"));
  const safe = redactSecrets(withoutCredential(message, credential));
  const error: UpstreamError = { code, status, retryable, message: safe.slice(0, MAX_MESSAGE_CHARS) };
  const retryAfterMs = parseRetryAfter(headers.get("retry-after"), now);
  if (retryAfterMs !== undefined) error.retryAfterMs = retryAfterMs;
  return error;
}

function statusRule(status: number): { code: UpstreamErrorCode; retryable: boolean } {
  // A redirect is the provider's (or its base_url's) problem, not the caller's: upstream requests do
  // not follow redirects (see redirectMessage), so another provider may still answer.
  if (status >= 300 && status < 400) return { code: "provider_error", retryable: true };
  if (status === 401 || status === 403) return { code: "auth_failed", retryable: true };
  if (status === 429) return { code: "rate_limited", retryable: true };
  if (status === 408 || status === 504) return { code: "provider_timeout", retryable: true };
  if (status === 409 || status >= 500) return { code: "provider_error", retryable: true };
  // 402 (provider account out of credit) is not the caller's fault either.
  if (status === 402) return { code: "provider_error", retryable: true };
  return { code: "invalid_request", retryable: false };
}

/** Retry-After as delta-seconds or an HTTP date → milliseconds from now (undefined when absent/garbage). */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const trimmed = value.trim();
  const seconds = Number(trimmed);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Shorter than this a credential is a word, and cutting it out would garble the message (no provider issues such keys). */
const MIN_CREDENTIAL_CHARS = 8;

/** `text` without the credential, as sent and in the encodings a provider may quote it in (URL, JSON). */
export function withoutCredential(text: string, credential: string | null | undefined): string {
  if (!credential || credential.length < MIN_CREDENTIAL_CHARS) return text;
  const forms = new Set([credential, encodeURIComponent(credential), JSON.stringify(credential).slice(1, -1)]);
  for (const form of forms) text = text.split(form).join("[redacted]");
  return text;
}

/**
 * Masks anything that looks like a credential. Providers echo part of a rejected key
 * ("Incorrect API key provided: sk-abc…xyz"), and the message goes to clients and logs.
 */
export function redactSecrets(text: string): string {
  // Split at spaces and at JSON / query punctuation, so `key=sk-…` and `{"key":"sk-…"}` are seen as words.
  return text
    .split(/([\s"'`=&{}[\](),]+)/)
    .map((word) => (looksLikeSecret(word) ? "[redacted]" : word))
    .join("");
}

const SECRET_PREFIXES = ["sk-", "sk_", "pk-", "rk-", "ak_", "gsk_", "xai-", "AIza", "key-", "Bearer:"];

function looksLikeSecret(word: string): boolean {
  const bare = word.replace(/^[("'`]+|[)"'`.,;:]+$/g, "");
  if (bare.length < 12) return false;
  if (SECRET_PREFIXES.some((p) => bare.startsWith(p))) return true;
  // Long unbroken tokens of key alphabet (no spaces, mixed letters and digits) are keys, not prose.
  return bare.length >= 32 && /^[A-Za-z0-9_\-*.]+$/.test(bare) && /\d/.test(bare) && /[A-Za-z]/.test(bare);
}

/**
 * Upstream requests go with `redirect: "manual"` (the socket client never follows one either): following
 * a redirect would send the provider's credential headers (`x-api-key`, `x-goog-api-key`) to wherever it
 * points, and a POST answered 301/302/303 would be re-sent as a GET. The operator is told where to point
 * the provider instead.
 */
function redirectMessage(status: number, location: string | null): string {
  const where = location ? ` to ${withoutQuery(location)}` : "";
  return `Upstream answered HTTP ${status}, a redirect${where}; the gateway does not follow redirects: set the provider's base_url to the address it moved to.`;
}

/** A Location without its query or fragment: those may carry a token, and the message reaches clients and logs. */
function withoutQuery(location: string): string {
  const cut = location.search(/[?#]/);
  return cut < 0 ? location : location.slice(0, cut);
}

/** Fallback message when the body is not the provider's error JSON (an HTML proxy page, empty body). */
export function genericMessage(status: number): string {
  return status === 0 ? "Upstream connection failed" : `Upstream answered HTTP ${status}`;
}

/** JSON.parse that returns undefined instead of throwing on a non-JSON error body. */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A 2xx answer whose body cannot be read as the provider's response (or a 200 that carries an error
 * object, as some OpenAI-compatible routers send). The pipeline treats it as a retryable provider error.
 */
export class UpstreamProtocolError extends Error {
  override readonly name = "UpstreamProtocolError";
}

/** The stream event for an unreadable SSE event (bad JSON): the stream cannot be trusted any more. */
export function malformedStreamError(detail: string): UpstreamError {
  return { code: "provider_error", status: 502, retryable: true, message: `Upstream sent a malformed stream event: ${detail}` };
}
