// Issue 53 part 5: an `anthropic` provider's base_url may be the API root or end in `/v1` (as SDK settings
// are often written); either way the gateway calls `/v1/messages` once, never `/v1/v1/messages`.
import { describe, expect, test } from "bun:test";
import { anthropicAdapter } from "../../../src/providers/anthropic/adapter";
import { anthropicApiRoot } from "../../../src/providers/anthropic/request";
import { target } from "./stream-harness";

const ROOTS = ["https://api.example.test", "https://api.example.test/", "https://api.example.test/v1", "https://api.example.test/v1/"];

describe("anthropic: a base_url ending in /v1 is called at /v1/messages, not /v1/v1/messages", () => {
  for (const baseUrl of ROOTS) {
    test(`messages go to /v1/messages with base_url ${baseUrl}`, () => {
      const built = anthropicAdapter.buildRequest(
        { model: "m", messages: [{ role: "user", content: "Hi" }] },
        target("anthropic", { baseUrl }),
      );
      expect(built.url).toBe("https://api.example.test/v1/messages");
    });

    test(`the credential check goes to /v1/models with base_url ${baseUrl}`, async () => {
      const calls: string[] = [];
      const fakeFetch = (async (input: string | URL | Request) => {
        calls.push(String(input));
        return new Response("{}", { status: 200 });
      }) as typeof fetch;
      await anthropicAdapter.validateCredential(baseUrl, "sk-test-key-123456", 1000, fakeFetch);
      expect(calls).toEqual(["https://api.example.test/v1/models"]);
    });
  }

  test("a path prefix other than /v1 is kept (a proxy mounted under /anthropic)", () => {
    expect(anthropicApiRoot("https://proxy.example.test/anthropic")).toBe("https://proxy.example.test/anthropic");
    expect(anthropicApiRoot("https://proxy.example.test/anthropic/v1")).toBe("https://proxy.example.test/anthropic");
    expect(anthropicApiRoot("https://proxy.example.test/v10")).toBe("https://proxy.example.test/v10");
  });
});
