// The Responses adapter against the mock upstream's `POST …/v1/responses` (requests built by the
// adapter reach it; its answers parse back), and adapterForRoute's choice of adapter per route.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { buildCatalog } from "../../../src/catalog/build";
import type { ProviderEntry, RouteEntry } from "../../../src/catalog/types";
import { openAICompatibleAdapter } from "../../../src/providers/openai-compatible/adapter";
import { openAIResponsesAdapter as adapter } from "../../../src/providers/openai-responses/adapter";
import { adapterFor, adapterForRoute } from "../../../src/providers/registry";
import type { ChatRequest, StreamEvent, UpstreamTarget } from "../../../src/providers/types";
import { startMockUpstream, type MockUpstream } from "../../support/mock-upstream";
import { assemble, collect } from "./stream-harness";

let mock: MockUpstream;
beforeAll(async () => (mock = await startMockUpstream({ apiKeys: { locked: "sk-right-0123456789" } })));
afterAll(() => mock.stop());
beforeEach(() => mock.reset());

function targetOn(provider = "alpha"): UpstreamTarget {
  return {
    providerId: provider,
    adapter: "openai",
    baseUrl: mock.baseUrl("openai", provider),
    apiKey: "sk-mock-0123456789",
    providerModelId: "gpt-5.5-pro",
    maxOutputTokens: 1024,
  };
}

function send(req: ChatRequest, t = targetOn(), signal?: AbortSignal) {
  const built = adapter.buildRequest(req, t);
  return fetch(built.url, { method: "POST", headers: built.headers, body: built.body, signal });
}

const streamEvents = async (res: Response): Promise<StreamEvent[]> => collect(res.body!.pipeThrough(adapter.streamTransform(targetOn())));
const chat: ChatRequest = { model: "openai/gpt-5.5-pro", messages: [{ role: "user", content: "Hi" }] };
const toolReply = {
  kind: "reply" as const,
  toolCalls: [{ name: "get_weather", arguments: { location: "Paris" } }],
  usage: { input: 120, output: 30, cached: 100, reasoning: 10 },
};
const toolUsage = { inputTokens: 120, outputTokens: 30, cachedTokens: 100, cacheWriteTokens: 0, reasoningTokens: 10 };

describe("mock upstream: POST …/v1/responses", () => {
  test("records the request as route responses of an openai-format provider", async () => {
    await send({ ...chat, stream: true }, targetOn("beta"));
    const [req] = mock.requests;
    expect(req).toMatchObject({
      provider: "beta",
      format: "openai",
      route: "responses",
      path: "/v1/responses",
      model: "gpt-5.5-pro",
      stream: true,
    });
    expect((req.body as { input: unknown[] }).input).toHaveLength(1);
  });

  test("the default reply is a Response object that parses to the mock's text", async () => {
    const result = adapter.parseResponse(await (await send(chat)).json(), targetOn());
    expect(result.choices[0]).toMatchObject({ message: { content: "Hello from the mock upstream." }, finish_reason: "stop" });
    expect(result.usage.inputTokens).toBe(10);
  });

  test("a synthesized JSON reply with function calls and usage parses back", async () => {
    mock.setScript({ route: "responses" }, toolReply);
    const result = adapter.parseResponse(await (await send(chat)).json(), targetOn());
    expect(result.choices[0].finish_reason).toBe("tool_calls");
    expect(result.choices[0].message.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["get_weather", { location: "Paris" }],
    ]);
    expect(result.usage).toEqual(toolUsage);
  });

  test("a synthesized stream with text, function calls and usage translates back", async () => {
    mock.setScript({ route: "responses", stream: true }, { ...toolReply, text: "Let me check.", gapMs: 1 });
    const res = await send({ ...chat, stream: true });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const out = assemble(await streamEvents(res));
    expect(out.content).toBe("Let me check.");
    expect(out.tools.map((c) => [c.id?.startsWith("call_"), c.name, JSON.parse(c.arguments)])).toEqual([
      [true, "get_weather", { location: "Paris" }],
    ]);
    expect(out.finishReason).toBe("tool_calls");
    expect(out.usage).toEqual([{ type: "usage", usage: toolUsage }]);
  });

  test("finish length is answered as an incomplete response, JSON and stream", async () => {
    mock.setScript({ route: "responses" }, { kind: "reply", text: "cut short", finish: "length" });
    expect(adapter.parseResponse(await (await send(chat)).json(), targetOn()).choices[0].finish_reason).toBe("length");
    expect(assemble(await streamEvents(await send({ ...chat, stream: true })))).toMatchObject({
      content: "cut short",
      finishReason: "length",
    });
  });

  test("an error behaviour answers in OpenAI's error shape", async () => {
    mock.setScript({ route: "responses" }, { kind: "error", status: 429, message: "slow down", headers: { "retry-after": "3" } });
    const res = await send(chat);
    expect(adapter.classifyError(res.status, await res.text(), res.headers)).toEqual({
      code: "rate_limited",
      status: 429,
      retryable: true,
      message: "slow down",
      retryAfterMs: 3000,
    });
  });

  test("a wrong key gets OpenAI's 401", async () => {
    const res = await send(chat, targetOn("locked"));
    expect(adapter.classifyError(res.status, await res.text(), res.headers)).toMatchObject({ code: "auth_failed", status: 401 });
  });

  test("malformed SSE ends the translation with one error event", async () => {
    mock.setScript({ route: "responses" }, { kind: "malformed" });
    const events = await streamEvents(await send({ ...chat, stream: true }));
    expect(events[0]).toMatchObject({ type: "delta", id: "resp_mock", delta: { role: "assistant" } });
    expect(assemble(events).errors).toHaveLength(1);
  });

  test("fixture behaviour replays a recorded Responses stream (event-framed) and a JSON body", async () => {
    mock.setScript({ route: "responses", stream: true }, { kind: "fixture", file: "openai-responses/tool-calls.chunks.txt", gapMs: 1 });
    mock.setScript({ route: "responses", stream: false }, { kind: "fixture", file: "openai-responses/incomplete.json" });
    const res = await send({ ...chat, stream: true });
    const raw = await res.clone().text();
    expect(raw.startsWith("event: response.created\ndata: {")).toBe(true);
    expect(assemble(await streamEvents(res)).tools.map((t) => t.id)).toEqual([
      "call_DdmO9pD3xa9XTPNJ32zg2hcA",
      "call_ABb3oPZFkHtW4ypJ3bLgmFCs",
    ]);
    expect(adapter.parseResponse(await (await send(chat)).json(), targetOn()).choices[0].finish_reason).toBe("length");
  });

  test("hangAfterChunks stalls mid-stream, and a client abort is recorded", async () => {
    mock.setScript({ route: "responses" }, { kind: "reply", text: "one two three four", hangAfterChunks: 3 });
    const controller = new AbortController();
    const reader = (await send({ ...chat, stream: true }, targetOn(), controller.signal))
      .body!.pipeThrough(adapter.streamTransform(targetOn()))
      .getReader();
    expect((await reader.read()).value).toMatchObject({ type: "delta", delta: { role: "assistant" } });
    const stalled = await Promise.race([reader.read().then(() => "data"), Bun.sleep(100).then(() => "stalled")]);
    expect(stalled).toBe("stalled");
    controller.abort();
    const deadline = Date.now() + 2000;
    while (!mock.requests[0].aborted && Date.now() < deadline) await Bun.sleep(5);
    expect(mock.requests[0].aborted).toBe(true);
  });

  test("cancelling the translated stream cancels the upstream body", async () => {
    let cancelled: unknown = null;
    const upstream = new ReadableStream<Uint8Array>({
      pull: () => new Promise(() => {}),
      cancel: (reason) => void (cancelled = reason ?? "cancelled"),
    });
    await upstream.pipeThrough(adapter.streamTransform(targetOn())).getReader().cancel("client went away");
    const deadline = Date.now() + 1000;
    while (cancelled === null && Date.now() < deadline) await Bun.sleep(2);
    expect(cancelled).not.toBeNull();
  });

  test("validateCredential lists models with the Bearer key, as for chat completions", async () => {
    expect(await adapter.validateCredential(mock.baseUrl("openai", "locked"), "sk-right-0123456789", 2000)).toEqual({ ok: true });
    expect(await adapter.validateCredential(mock.baseUrl("openai", "locked"), "sk-wrong-0123456789", 2000)).toMatchObject({
      ok: false,
      kind: "invalid",
    });
  });
});

describe("adapterForRoute", () => {
  const catalog = buildCatalog({ file: {}, credentialEnv: {} });
  const routeOf = (modelId: string, providerId: string): [ProviderEntry, RouteEntry] => {
    const route = catalog.resolve(modelId)?.routes.find((r) => r.provider === providerId);
    const provider = catalog.providers.get(providerId);
    if (!route || !provider) throw new Error(`no ${providerId} route for ${modelId} in the built-in catalog`);
    return [provider, route];
  };

  test("a Responses-only OpenAI route (gpt-5.5-pro) gets the Responses adapter", () => {
    expect(adapterForRoute(...routeOf("gpt-5.5-pro", "openai"))).toBe(adapter);
  });

  test("an OpenAI route that also serves chat completions keeps the chat adapter", () => {
    expect(adapterForRoute(...routeOf("gpt-4o-mini", "openai"))).toBe(openAICompatibleAdapter);
  });

  test("other wire protocols are unaffected, whatever the route's endpoints say", () => {
    const [openai, route] = routeOf("gpt-5.5-pro", "openai");
    for (const name of ["anthropic", "gemini"] as const)
      expect(adapterForRoute({ ...openai, adapter: name }, route)).toBe(adapterFor(name));
  });
});
