import { describe, expect, test } from "bun:test";
import type { AdapterName } from "../../../src/catalog/types";
import { adapterFor } from "../../../src/providers/registry";
import { parseRetryAfter, redactSecrets } from "../../../src/providers/upstream-errors";
import { errorBody, readFixture } from "../../support/mock-upstream-wire";

const ADAPTERS: AdapterName[] = ["openai", "anthropic", "gemini"];

describe("classifyError status rules (every adapter)", () => {
  const cases: [number, string, boolean][] = [
    [400, "invalid_request", false],
    [404, "invalid_request", false],
    [422, "invalid_request", false],
    [401, "auth_failed", true],
    [403, "auth_failed", true],
    [408, "provider_timeout", true],
    [409, "provider_error", true],
    [429, "rate_limited", true],
    [500, "provider_error", true],
    [502, "provider_error", true],
    [503, "provider_error", true],
    [504, "provider_timeout", true],
    [529, "provider_error", true],
  ];
  for (const adapter of ADAPTERS) {
    for (const [status, code, retryable] of cases) {
      test(`${adapter}: ${status} → ${code}, retryable ${retryable}, message from the provider's error shape`, () => {
        const body = JSON.stringify(errorBody(adapter, status, `boom ${status}`));
        const error = adapterFor(adapter).classifyError(status, body, new Headers());
        expect(error).toEqual({ code: code as never, status, retryable, message: `boom ${status}` });
      });
    }
  }
});

describe("classifyError messages and hints", () => {
  test("openai: extracts error.message from the recorded 429 body and honours Retry-After seconds", () => {
    const error = adapterFor("openai").classifyError(429, readFixture("openai/error-429.json"), new Headers({ "retry-after": "2" }));
    expect(error.message).toStartWith("Rate limit reached for gpt-4o-mini");
    expect(error.retryAfterMs).toBe(2000);
  });

  test("openai: a 401 message never carries the echoed credential", () => {
    const error = adapterFor("openai").classifyError(401, readFixture("openai/error-401.json"), new Headers());
    expect(error.code).toBe("auth_failed");
    expect(error.message).toContain("Incorrect API key provided: [redacted]");
    expect(error.message).not.toContain("sk-proj");
  });

  test("anthropic: reads {type:error, error:{type, message}} and maps overloaded 529 as retryable", () => {
    const error = adapterFor("anthropic").classifyError(529, readFixture("anthropic/error-529.json"), new Headers());
    expect(error).toEqual({ code: "provider_error", status: 529, retryable: true, message: "Overloaded" });
  });

  test("gemini: a 400 with reason API_KEY_INVALID is auth_failed, keeping the upstream status", () => {
    const error = adapterFor("gemini").classifyError(400, readFixture("gemini/error-400-invalid-key.json"), new Headers());
    expect(error).toEqual({
      code: "auth_failed",
      status: 400,
      retryable: true,
      message: "API key not valid. Please pass a valid API key.",
    });
  });

  test("gemini: a plain 400 stays invalid_request", () => {
    expect(adapterFor("gemini").classifyError(400, readFixture("gemini/error-400.json"), new Headers()).code).toBe("invalid_request");
  });

  test("gemini: RetryInfo retryDelay gives retryAfterMs when no Retry-After header is sent", () => {
    expect(adapterFor("gemini").classifyError(429, readFixture("gemini/error-429.json"), new Headers()).retryAfterMs).toBe(13000);
  });

  for (const status of [301, 307, 308]) {
    test(`a ${status} redirect is the provider's error (retryable, never the caller's) and names where it points`, () => {
      for (const adapter of ADAPTERS) {
        const error = adapterFor(adapter).classifyError(
          status,
          "<html>Moved</html>",
          new Headers({ location: "https://api.example.com/v2" }),
        );
        expect(error.code).toBe("provider_error");
        expect(error.retryable).toBe(true);
        expect(error.status).toBe(status);
        expect(error.message).toContain(`HTTP ${status}, a redirect to https://api.example.com/v2`);
        expect(error.message).toContain("base_url");
      }
    });
  }

  test("a redirect's Location is named without its query, which may carry a token", () => {
    const headers = new Headers({ location: "https://api.example.com/v2/models?key=AIzaSyA-0123456789abcdefghijklmnopqrstu#x" });
    const error = adapterFor("gemini").classifyError(302, "", headers);
    expect(error.message).toContain("a redirect to https://api.example.com/v2/models;");
    expect(error.message).not.toContain("AIza");
  });

  test("a body that is not JSON gives a generic message with the status", () => {
    expect(adapterFor("anthropic").classifyError(502, "<html>Bad gateway</html>", new Headers()).message).toBe(
      "Upstream answered HTTP 502",
    );
  });
});

describe("Retry-After and redaction", () => {
  test("Retry-After accepts delta-seconds and HTTP dates, ignores garbage", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("30", now)).toBe(30000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:10 GMT", now)).toBe(10000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  test("redactSecrets masks key-shaped tokens and leaves prose alone", () => {
    expect(redactSecrets("bad key sk-ant-api03-AbC123xyz789 here")).toBe("bad key [redacted] here");
    expect(redactSecrets("key AIzaSyD-abcdefghijklmnop1234 rejected")).toBe("key [redacted] rejected");
    expect(redactSecrets("token 0123456789abcdef0123456789abcdefXYZ.")).toBe("token [redacted]");
    expect(redactSecrets("The model is overloaded. Please try again later.")).toBe("The model is overloaded. Please try again later.");
  });
});
