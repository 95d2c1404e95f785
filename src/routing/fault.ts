// Whose fault an upstream failure is, for the circuit breaker (health.ts): only the provider's own failures
// may open a route's circuit, since a route's circuit is shared by every workspace that uses it.
import type { UpstreamError } from "../providers/types";

/**
 * A failure the provider caused: a connection error, a connect / first-byte / mid-stream-silence timeout,
 * a 5xx, or a 429 on the platform's key. Not: the caller's bad request (4xx), a tenant's own BYOK key
 * being refused or rate limited, or a timeout of the attempt's whole duration, which the request's own
 * `max_tokens` or stream length may have made long.
 */
export function isProviderFault(error: UpstreamError, keySource: "byok" | "platform"): boolean {
  if (error.code === "invalid_request" || error.code === "auth_failed") return false;
  if (error.code === "rate_limited" || error.status === 429) return keySource === "platform";
  if (error.status === 0) return error.wholeAttempt !== true;
  return error.status >= 500;
}
