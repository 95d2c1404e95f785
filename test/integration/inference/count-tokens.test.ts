// POST /v1/messages/count_tokens through the real server: forwarded to an Anthropic route as the client
// sent it (model ID aside), the provider's answer and errors as they came; estimated with o200k_base for
// a model without one; authenticated and validated like /v1/messages, in Anthropic's error shape.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { gatewayConfig } from "../../support/gateway";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "../../support/mock-upstream";
import { startServer, type InProcessServer } from "../../support/server";
import { estimateInputTokens, o200kCounter } from "../../../src/inference/messages/token-estimate";
import { createApp } from "../../../src/app";

let mock: MockUpstream;
let s: InProcessServer;
const PLATFORM_KEY = "sk-beta-platform-0123456789";

beforeAll(async () => {
  mock = await startMockUpstream();
  const config = gatewayConfig(mock) as { providers: Record<string, unknown>; models: Record<string, unknown> };
  const anthropic = (name: string, more: Record<string, unknown> = {}) => ({
    adapter: "anthropic",
    base_url: mock.baseUrl("anthropic", name),
    api_key: `sk-${name}-platform-0123456789`,
    data_policy: "zdr",
    timeout_ms: 2000,
    ...more,
  });
  config.providers.first = anthropic("first");
  config.providers.second = anthropic("second");
  config.providers.slow = anthropic("slow", { timeout_ms: 300 });
  // Nothing listens there: a port just closed by a server of our own.
  const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const closedUrl = `http://127.0.0.1:${closed.port}`;
  await closed.stop(true);
  config.providers.gone = anthropic("gone", { base_url: closedUrl });
  const route = (provider: string, id: string) => ({ provider, provider_model_id: id, input_price: 1, output_price: 2 });
  // Equal prices and priors: the catalog's order decides which route is tried first.
  config.models["acme/two-anthropic"] = { routes: [route("first", "claude-first"), route("second", "claude-second")] };
  config.models["acme/slow-anthropic"] = { routes: [route("slow", "claude-slow")] };
  config.models["acme/gone-anthropic"] = { routes: [route("gone", "claude-gone")] };
  s = await startServer({ configFile: config });
});
afterAll(async () => {
  await s.stop();
  await mock.stop();
});
beforeEach(() => mock.reset());

const count = (body: unknown, headers: Record<string, string> = {}, key: string | null = null) =>
  s.fetch("/v1/messages/count_tokens", {
    method: "POST",
    key,
    headers: { "content-type": "application/json", "x-api-key": s.adminKey, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const counts = (): RecordedRequest[] => mock.requests.filter((r) => r.route === "count_tokens");

const BODY = {
  model: "acme/anthropic-only",
  system: [{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } }],
  messages: [{ role: "user", content: [{ type: "text", text: "How many tokens is this?" }] }],
  tools: [{ name: "lookup", description: "Look a word up", input_schema: { type: "object", properties: { q: { type: "string" } } } }],
  tool_choice: { type: "auto" },
  thinking: { type: "enabled", budget_tokens: 2048 },
  some_future_field: { kept: true },
};

describe("a model with an Anthropic route: counted by the provider", () => {
  test("the body goes upstream as sent apart from the model; version and beta headers forwarded; the answer as it came", async () => {
    mock.setScript({ route: "count_tokens" }, { kind: "reply", usage: { input: 321 } });
    const res = await count(
      { ...BODY, gateway: { metadata: { tags: ["x"] } }, extensions: { beta: { top_k: 3 } } },
      { "anthropic-version": "2023-06-01", "anthropic-beta": "token-counting-2024-11-01,interleaved-thinking-2025-05-14" },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ input_tokens: 321 });
    expect(res.headers.get("x-switchyard-token-count")).toBe("provider");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("request-id")).toBe(res.headers.get("x-request-id"));
    const sent = counts();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.provider).toBe("beta");
    expect(sent[0]!.path).toBe("/v1/messages/count_tokens");
    expect(sent[0]!.body).toEqual({ ...BODY, model: "claude-solo" });
    expect(Object.keys(sent[0]!.body as object)).toEqual(Object.keys(BODY));
    expect(sent[0]!.headers["x-api-key"]).toBe(PLATFORM_KEY);
    expect(sent[0]!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent[0]!.headers["anthropic-beta"]).toBe("token-counting-2024-11-01,interleaved-thinking-2025-05-14");
    expect(sent[0]!.headers.authorization).toBeUndefined();
    // Nothing else was asked of the provider (no inference call).
    expect(mock.requests).toHaveLength(1);
  });

  test("without anthropic-version the default is sent; a Bearer key is accepted too", async () => {
    const res = await count({ model: "acme/anthropic-only", messages: [{ role: "user", content: "hi" }] }, { "x-api-key": "" }, s.adminKey);
    expect(res.status).toBe(200);
    expect(counts()[0]!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(counts()[0]!.headers["anthropic-beta"]).toBeUndefined();
  });

  test("the official SDK's countTokens is answered", async () => {
    mock.setScript({ route: "count_tokens" }, { kind: "reply", usage: { input: 17 } });
    const anthropic = new Anthropic({ baseURL: s.url, apiKey: s.adminKey, maxRetries: 0 });
    const r = await anthropic.messages.countTokens({ model: "acme/anthropic-only", messages: [{ role: "user", content: "hello" }] });
    expect(r.input_tokens).toBe(17);
  });

  test("a model with routes on several wires is counted at its Anthropic route", async () => {
    const res = await count({ model: "acme/chat", messages: [{ role: "user", content: "hi" }] });
    expect(res.headers.get("x-switchyard-token-count")).toBe("provider");
    expect(counts()[0]!.provider).toBe("beta");
    expect((counts()[0]!.body as { model: string }).model).toBe("beta-chat");
  });

  test("a provider error comes back with its status and body, the credential cut out", async () => {
    const body = {
      type: "error",
      error: { type: "invalid_request_error", message: `messages.0.content: Field required (key ${PLATFORM_KEY})` },
      request_id: "req_upstream_1",
    };
    mock.setScript({ route: "count_tokens" }, { kind: "error", status: 400, body });
    const res = await count(BODY);
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain(PLATFORM_KEY);
    expect(JSON.parse(text)).toEqual({ ...body, error: { ...body.error, message: "messages.0.content: Field required (key [redacted])" } });
    expect(res.headers.get("x-switchyard-token-count")).toBe("provider");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  test("an untouched error body is sent byte for byte", async () => {
    mock.setScript({ route: "count_tokens" }, { kind: "error", status: 404, message: "model: claude-solo not found" });
    const res = await count(BODY);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(
      JSON.stringify({
        type: "error",
        error: { type: "not_found_error", message: "model: claude-solo not found" },
        request_id: "req_mock",
      }),
    );
  });

  test("a retryable failure at the only route is still the provider's word: 429 with its Retry-After", async () => {
    mock.setScript({ route: "count_tokens" }, { kind: "error", status: 429, message: "slow down", headers: { "retry-after": "7" } });
    const res = await count(BODY);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("rate_limit_error");
  });

  test("a retryable failure moves on to the next Anthropic route; a caller's error does not", async () => {
    mock.setScript({ provider: "first", route: "count_tokens" }, { kind: "error", status: 529, message: "Overloaded" });
    mock.setScript({ provider: "second", route: "count_tokens" }, { kind: "reply", usage: { input: 99 } });
    const res = await count({ model: "acme/two-anthropic", messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ input_tokens: 99 });
    expect(counts().map((r) => [r.provider, (r.body as { model: string }).model])).toEqual([
      ["first", "claude-first"],
      ["second", "claude-second"],
    ]);
    expect(counts()[1]!.headers["x-api-key"]).toBe("sk-second-platform-0123456789");

    mock.reset();
    mock.setScript({ provider: "first", route: "count_tokens" }, { kind: "error", status: 400, message: "bad block" });
    const bad = await count({ model: "acme/two-anthropic", messages: [{ role: "user", content: "hi" }] });
    expect(bad.status).toBe(400);
    expect(counts().map((r) => r.provider)).toEqual(["first"]);
  });

  test("the gateway's credential refused (401/403) is not the client's: the next route, else a 502", async () => {
    mock.setScript({ provider: "first", route: "count_tokens" }, { kind: "error", status: 401, message: "invalid x-api-key" });
    const next = await count({ model: "acme/two-anthropic", messages: [{ role: "user", content: "hi" }] });
    expect(next.status).toBe(200);
    expect(counts().map((r) => r.provider)).toEqual(["first", "second"]);

    mock.setScript({ provider: "beta", route: "count_tokens" }, { kind: "error", status: 403, message: "forbidden" });
    const res = await count(BODY);
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ type: "error", error: { type: "api_error" } });
  });

  test("a provider that cannot be reached is a 502, one that does not answer in time a 504, in Anthropic's shape", async () => {
    const gone = await count({ model: "acme/gone-anthropic", messages: [{ role: "user", content: "hi" }] });
    expect(gone.status).toBe(502);
    expect(await gone.json()).toMatchObject({ type: "error", error: { type: "api_error" } });

    mock.setScript({ provider: "slow", route: "count_tokens" }, { kind: "hang" });
    const slow = await count({ model: "acme/slow-anthropic", messages: [{ role: "user", content: "hi" }] });
    expect(slow.status).toBe(504);
    expect(await slow.json()).toMatchObject({ type: "error", error: { type: "api_error" } });
  });

  test("counting is not metered: no request record is written", async () => {
    await count(BODY);
    await s.deps.records.flush();
    expect(await s.deps.db.orm.select().from(s.deps.db.t.requestRecords)).toHaveLength(0);
  });
});

describe("a model without an Anthropic route: estimated with o200k_base", () => {
  const body = (text: string) => ({
    model: "acme/openai-only",
    system: "Be brief.",
    messages: [
      { role: "user", content: text },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "lookup", input: { q: "tokens" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "Tokens are pieces of words." }] },
    ],
    tools: [{ name: "lookup", description: "Look a word up", input_schema: { type: "object", properties: { q: { type: "string" } } } }],
  });

  test("the answer is the tokenizer's count of the body's text, with headers saying it is an estimate", async () => {
    const b = body("How many tokens does this sentence hold?");
    const res = await count(b);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-switchyard-token-count")).toBe("estimate");
    expect(res.headers.get("x-switchyard-tokenizer")).toBe("o200k_base");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("request-id")).toBe(res.headers.get("x-request-id"));
    const { input_tokens } = (await res.json()) as { input_tokens: number };
    expect(input_tokens).toBe(estimateInputTokens(b, await o200kCounter()));
    // Plausible: more than the user's sentence alone, and within a small multiple of the JSON's characters / 4.
    const counter = await o200kCounter();
    expect(input_tokens).toBeGreaterThan(counter("How many tokens does this sentence hold?"));
    expect(input_tokens).toBeLessThan(JSON.stringify(b).length / 2);
    expect(mock.requests).toHaveLength(0);
  });

  test("the count grows with the text", async () => {
    const short = (await (await count(body("one two three"))).json()) as { input_tokens: number };
    const long = (await (await count(body("one two three ".repeat(50)))).json()) as { input_tokens: number };
    expect(long.input_tokens).toBeGreaterThan(short.input_tokens + 100);
  });
});

describe("authentication and validation, in Anthropic's error shape", () => {
  test("no key is a 401 authentication_error, before the body is read", async () => {
    const res = await count(BODY, { "x-api-key": "" });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    const wrong = await count(BODY, { "x-api-key": "ak_notakeyatall0000000000000000" });
    expect(wrong.status).toBe(401);
    expect(counts()).toHaveLength(0);
  });

  test.each([
    ["a missing model", { messages: [] }, "'model'"],
    ["an empty model", { model: "", messages: [] }, "'model'"],
    ["messages that are not an array", { model: "acme/openai-only", messages: "hi" }, "'messages'"],
    ["a body that is not an object", [1, 2], "The request body"],
  ])("%s is a 400 invalid_request_error naming it", async (_, body, names) => {
    const res = await count(body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(json.type).toBe("error");
    expect(json.error.type).toBe("invalid_request_error");
    expect(json.error.message).toContain(names);
  });

  test("malformed JSON and NUL in a string are 400s; an unknown model is a 404 not_found_error", async () => {
    expect((await count("{not json")).status).toBe(400);
    const nul = await count(JSON.stringify({ model: "acme/openai-only", messages: [{ role: "user", content: "a\u0000b" }] }));
    expect(nul.status).toBe(400);
    expect(((await nul.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    const unknown = await count({ model: "acme/nope", messages: [] });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ type: "error", error: { type: "not_found_error" } });
  });

  test("the Elysia route (app.handle, the OpenAPI document's) answers as the served one does", async () => {
    const app = createApp(s.deps);
    const handle = (body: unknown, key: string | null = s.adminKey) =>
      app.handle(
        new Request("http://local/v1/messages/count_tokens", {
          method: "POST",
          headers: key ? { "x-api-key": key, "content-type": "application/json" } : { "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
    mock.setScript({ route: "count_tokens" }, { kind: "reply", usage: { input: 5 } });
    const forwarded = await handle({ model: "acme/anthropic-only", messages: [] });
    expect(await forwarded.json()).toEqual({ input_tokens: 5 });
    expect(forwarded.headers.get("x-switchyard-token-count")).toBe("provider");
    const estimated = await handle({ model: "acme/openai-only", messages: [{ role: "user", content: "hi" }] });
    expect(estimated.headers.get("x-switchyard-token-count")).toBe("estimate");
    expect(((await estimated.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    const anonymous = await handle({ model: "acme/openai-only", messages: [] }, null);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    const spec = (await (await app.handle(new Request("http://local/openapi.json"))).json()) as { paths: Record<string, unknown> };
    expect(spec.paths["/v1/messages/count_tokens"]).toBeDefined();
  });

  test("/v1/messages beside it still answers (the two routes do not shadow each other)", async () => {
    const res = await s.fetch("/v1/messages", {
      method: "POST",
      key: null,
      headers: { "x-api-key": s.adminKey },
      body: JSON.stringify({ model: "acme/anthropic-only", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(mock.requests.map((r) => r.route)).toEqual(["chat"]);
  });
});
