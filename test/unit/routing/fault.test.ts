import { describe, expect, test } from "bun:test";
import { isProviderFault } from "../../../src/routing/fault";
import type { UpstreamError, UpstreamErrorCode } from "../../../src/providers/types";

const err = (code: UpstreamErrorCode, status: number, extra: Partial<UpstreamError> = {}): UpstreamError => ({
  code,
  status,
  retryable: true,
  message: "m",
  ...extra,
});

describe("only the provider's own failures count against a route's circuit (issue 52 item 14)", () => {
  const cases: [string, UpstreamError, "byok" | "platform", boolean][] = [
    ["a connection error", err("provider_error", 0), "platform", true],
    ["a connect / first-byte timeout", err("provider_timeout", 0), "platform", true],
    ["a 5xx", err("provider_error", 503), "platform", true],
    ["a 5xx on a BYOK key (the provider failed, not the key)", err("provider_error", 500), "byok", true],
    ["a 429 on the platform key", err("rate_limited", 429), "platform", true],
    ["a 429 on the tenant's own BYOK key", err("rate_limited", 429), "byok", false],
    ["a 401 of the tenant's BYOK key", err("auth_failed", 401), "byok", false],
    ["the caller's bad request (400)", err("invalid_request", 400), "platform", false],
    ["a 404 or 422 the request caused", err("provider_error", 422), "platform", false],
    ["a whole-attempt timeout of a long generation", err("provider_timeout", 0, { wholeAttempt: true }), "platform", false],
  ];
  for (const [what, error, source, counts] of cases) {
    test(`${what} ${counts ? "counts" : "does not count"}`, () => {
      expect(isProviderFault(error, source)).toBe(counts);
    });
  }
});
