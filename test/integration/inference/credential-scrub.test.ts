// The platform credential never reaches a caller: an upstream error (a JSON 400/401 answer or a
// mid-stream error event) that quotes the key the gateway sent, in any wrapping, reaches the client,
// its headers and the log with the key cut out. The keys here look like prose to the heuristic
// (no digits, no known prefix): only the exact-credential scrub can catch them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startMockUpstream, type MockUpstream } from "../../support/mock-upstream";
import { gatewayConfig } from "../../support/gateway";
import { startServer, type InProcessServer } from "../../support/server";

const KEYS = {
  alpha: "alpha-platform-credential-QWERTYUIOPASDF",
  beta: "beta-platform-credential-ZXCVBNMLKJHGF",
  gamma: "gamma-platform-credential-POIUYTREWQLKJ",
} as const;
type Provider = keyof typeof KEYS;
type Format = "openai" | "anthropic" | "gemini" | "openai-responses";

/** The forms a provider quotes a rejected key in. */
const quotes = (k: string): string[] => [`key=${k}`, `{"key":"${k}"}`, `api_key=${k} was rejected`, `Invalid API key: ${k}.`];

const ENDPOINTS = ["/v1/chat/completions", "/v1/responses", "/v1/messages"];
const ROUTES: { model: string; provider: Provider; format: Format; endpoints: string[] }[] = [
  { model: "acme/openai-only", provider: "alpha", format: "openai", endpoints: ENDPOINTS },
  { model: "acme/anthropic-only", provider: "beta", format: "anthropic", endpoints: ENDPOINTS },
  { model: "acme/gemini-only", provider: "gamma", format: "gemini", endpoints: ENDPOINTS },
  // OpenAI's Responses API, reached natively from /v1/responses only.
  { model: "acme/responses-only", provider: "alpha", format: "openai-responses", endpoints: ["/v1/responses"] },
];

function body(endpoint: string, model: string, stream: boolean): Record<string, unknown> {
  if (endpoint === "/v1/responses") return { model, input: "Hi", stream };
  if (endpoint === "/v1/messages") return { model, max_tokens: 16, messages: [{ role: "user", content: "Hi" }], stream };
  return { model, messages: [{ role: "user", content: "Hi" }], stream };
}

const frame = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

/** Some content (so the stream is committed), then the provider's error event quoting the key. */
function streamWithError(format: Format, message: string): string[] {
  if (format === "anthropic") {
    return [
      frame({ type: "message_start", message: { id: "msg_1", model: "m", usage: { input_tokens: 3, output_tokens: 1 } } }, "message_start"),
      frame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
      frame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Once" } }, "content_block_delta"),
      frame({ type: "error", error: { type: "api_error", message } }, "error"),
    ];
  }
  if (format === "gemini") {
    return [
      frame({ candidates: [{ content: { parts: [{ text: "Once" }], role: "model" }, index: 0 }] }),
      frame({ error: { code: 500, message, status: "INTERNAL" } }),
    ];
  }
  if (format === "openai-responses") {
    return [
      frame({ type: "response.created", response: { id: "resp_1", status: "in_progress", output: [] } }, "response.created"),
      frame(
        { type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: "Once" },
        "response.output_text.delta",
      ),
      frame({ type: "error", code: "server_error", message }, "error"),
    ];
  }
  return [
    frame({
      id: "c1",
      object: "chat.completion.chunk",
      model: "m",
      choices: [{ index: 0, delta: { role: "assistant", content: "Once" } }],
    }),
    frame({ error: { code: 500, message } }),
  ];
}

async function everything(res: Response): Promise<string> {
  let headers = "";
  res.headers.forEach((v, k) => (headers += `${k}: ${v}\n`));
  return `${headers}\n${await res.text()}`;
}

/** A gateway whose providers hold KEYS, for the tests of one describe block. */
function gatewayWithKeys(): { mock: MockUpstream; s: InProcessServer } {
  const g = {} as { mock: MockUpstream; s: InProcessServer };
  beforeAll(async () => {
    g.mock = await startMockUpstream();
    const config = gatewayConfig(g.mock) as { providers: Record<string, Record<string, unknown>> };
    for (const [name, key] of Object.entries(KEYS)) config.providers[name]!.api_key = key;
    g.s = await startServer({ configFile: config });
  });
  afterAll(async () => {
    await g.s.stop();
    await g.mock.stop();
  });
  return g;
}

describe("the credential the attempt sent never reaches the caller", () => {
  const g = gatewayWithKeys();

  for (const { model, provider, format, endpoints } of ROUTES) {
    const key = KEYS[provider];
    for (const endpoint of endpoints) {
      for (const status of [400, 401]) {
        test(`a JSON ${status} from ${format} quoting the key is scrubbed on ${endpoint}`, async () => {
          const { mock, s } = g;
          mock.reset();
          const message = quotes(key).join(" | ");
          mock.setScript({ provider }, { kind: "error", status, message, headers: { "x-echo-key": key } });
          const res = await s.fetch(endpoint, { method: "POST", body: JSON.stringify(body(endpoint, model, false)) });
          const all = await everything(res);
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(mock.requests.length).toBeGreaterThan(0);
          expect(all).not.toContain(key);
          // The upstream's message still reaches the caller, minus the key (so the test is not vacuous).
          if (status === 400) expect(all).toContain("[redacted]");
        });
      }
      test(`a mid-stream error event from ${format} quoting the key is scrubbed on ${endpoint}`, async () => {
        const { mock, s } = g;
        mock.reset();
        mock.setScript({ provider }, { kind: "sse", chunks: streamWithError(format, quotes(key).join(" | ")) });
        const res = await s.fetch(endpoint, { method: "POST", body: JSON.stringify(body(endpoint, model, true)) });
        const all = await everything(res);
        expect(mock.requests.length).toBeGreaterThan(0);
        expect(all).toContain("Once");
        expect(all).toContain("[redacted]");
        expect(all).not.toContain(key);
      });
    }
  }

  test("no log line carries a platform credential", () => {
    const { s } = g;
    const logs = s.logs.join("\n");
    for (const key of Object.values(KEYS)) expect(logs).not.toContain(key);
  });
});

describe("a BYOK credential never reaches the caller either", () => {
  const g = gatewayWithKeys();

  test("a workspace's own (BYOK) key quoted by a Gemini 400 is scrubbed too", async () => {
    const { mock, s } = g;
    mock.reset();
    const byok = "workspace-own-gemini-credential-LKJHGFDSA";
    const created = await s.fetch(`/v1/workspaces/${s.workspaceId}/byok-keys`, {
      method: "POST",
      body: JSON.stringify({ provider: "gamma", api_key: byok }),
    });
    expect(created.ok).toBe(true);
    mock.setScript({ provider: "gamma", route: "chat" }, { kind: "error", status: 400, message: quotes(byok).join(" | ") });
    const res = await s.fetch("/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify(body("/v1/chat/completions", "acme/gemini-only", false)),
    });
    const sent = mock.requests.find((r) => r.route === "chat");
    expect(sent?.headers["x-goog-api-key"]).toBe(byok);
    const all = await everything(res);
    expect(all).toContain("[redacted]");
    expect(all).not.toContain(byok);
    expect(s.logs.join("\n")).not.toContain(byok);
  });
});
