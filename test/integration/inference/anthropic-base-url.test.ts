// Issue 53 part 5, end to end: an `anthropic` provider configured with a base_url ending in `/v1` serves
// a Messages call and a chat call, and the upstream is asked at `/v1/messages`.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gatewayConfig } from "../../support/gateway";
import { startMockUpstream, type MockUpstream } from "../../support/mock-upstream";
import { startServer, type InProcessServer } from "../../support/server";

let mock: MockUpstream;
let s: InProcessServer;
beforeAll(async () => {
  mock = await startMockUpstream();
  const config = gatewayConfig(mock) as { providers: Record<string, { base_url: string }> };
  config.providers.beta!.base_url = `${mock.baseUrl("anthropic", "beta")}/v1`;
  s = await startServer({ configFile: config });
});
afterAll(async () => {
  await s.stop();
  await mock.stop();
});

describe("an anthropic base_url ending in /v1 is called at /v1/messages", () => {
  test("a Messages call through the official SDK is answered and reached /v1/messages upstream", async () => {
    const anthropic = new Anthropic({ baseURL: s.url, apiKey: s.adminKey, maxRetries: 0 });
    const m = await anthropic.messages.create({
      model: "acme/anthropic-only",
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(m.content[0]).toMatchObject({ type: "text", text: "Hello from the mock upstream." });
    const sent = mock.requests.at(-1)!;
    expect(sent.provider).toBe("beta");
    expect(sent.path).toBe("/v1/messages");
  });

  test("a chat completion to the same route reached /v1/messages upstream", async () => {
    const res = await s.fetch("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/anthropic-only", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(mock.requests.at(-1)!.path).toBe("/v1/messages");
  });
});
