// The mock upstream must speak each provider's real format: requests built by the adapters reach it,
// and its answers (synthesized or scripted) parse back into the same internal result.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { AdapterName } from "../../../src/catalog/types";
import { adapterFor } from "../../../src/providers/registry";
import type { ChatRequest, StreamEvent, UpstreamTarget } from "../../../src/providers/types";
import { startMockUpstream, type MockUpstream } from "../../support/mock-upstream";
import { assemble, collect } from "./stream-harness";

const ADAPTERS: AdapterName[] = ["openai", "anthropic", "gemini"];
let mock: MockUpstream;
beforeAll(async () => (mock = await startMockUpstream()));
afterAll(() => mock.stop());
beforeEach(() => mock.reset());

function targetOn(adapter: AdapterName, provider = "alpha"): UpstreamTarget {
  return {
    providerId: provider,
    adapter,
    baseUrl: mock.baseUrl(adapter, provider),
    apiKey: "sk-mock-0123456789",
    providerModelId: "mock-model-1",
    maxOutputTokens: 1024,
  };
}

async function send(adapter: AdapterName, req: ChatRequest, t = targetOn(adapter)) {
  const built = adapterFor(adapter).buildRequest(req, t);
  return fetch(built.url, { method: "POST", headers: built.headers, body: built.body });
}

async function streamEvents(adapter: AdapterName, res: Response): Promise<StreamEvent[]> {
  return collect(res.body!.pipeThrough(adapterFor(adapter).streamTransform(targetOn(adapter))));
}

const chat: ChatRequest = { model: "acme/x", messages: [{ role: "user", content: "Hi" }] };
const toolReply = {
  kind: "reply" as const,
  toolCalls: [{ name: "get_weather", arguments: { location: "Paris" } }],
  usage: { input: 120, output: 30, cached: 100, reasoning: 10 },
};

describe("mock upstream round trip", () => {
  for (const adapter of ADAPTERS) {
    test(`${adapter}: records the request by provider prefix, format and model`, async () => {
      await send(adapter, chat, targetOn(adapter, "beta"));
      const [req] = mock.requests;
      expect(req).toMatchObject({ provider: "beta", format: adapter, route: "chat", model: "mock-model-1", stream: false });
      expect(req.body).not.toBeNull();
    });

    test(`${adapter}: a synthesized JSON reply with tool calls and usage parses back`, async () => {
      mock.setScript({ format: adapter }, toolReply);
      const res = await send(adapter, chat);
      const result = adapterFor(adapter).parseResponse(await res.json(), targetOn(adapter));
      expect(result.choices[0].finish_reason).toBe("tool_calls");
      expect(result.choices[0].message.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
        ["get_weather", { location: "Paris" }],
      ]);
      expect(result.usage).toEqual({
        inputTokens: 120,
        outputTokens: 30,
        cachedTokens: 100,
        cacheWriteTokens: 0,
        reasoningTokens: adapter === "anthropic" ? 0 : 10,
      });
    });

    test(`${adapter}: a synthesized stream with tool calls and usage translates back`, async () => {
      mock.setScript({ format: adapter, stream: true }, { ...toolReply, text: "Let me check.", gapMs: 1 });
      const out = assemble(await streamEvents(adapter, await send(adapter, { ...chat, stream: true })));
      expect(out.content).toBe("Let me check.");
      expect(out.tools.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([["get_weather", { location: "Paris" }]]);
      expect(out.usage).toHaveLength(1);
      expect((out.usage[0] as { usage: { inputTokens: number } }).usage.inputTokens).toBe(120);
    });

    test(`${adapter}: an error behaviour answers in the provider's error shape`, async () => {
      mock.setScript({ format: adapter }, { kind: "error", status: 429, message: "slow down", headers: { "retry-after": "3" } });
      const res = await send(adapter, chat);
      const error = adapterFor(adapter).classifyError(res.status, await res.text(), res.headers);
      expect(error).toEqual({ code: "rate_limited", status: 429, retryable: true, message: "slow down", retryAfterMs: 3000 });
    });

    test(`${adapter}: malformed SSE ends the translation with an error event`, async () => {
      mock.setScript({ format: adapter }, { kind: "malformed" });
      const out = assemble(await streamEvents(adapter, await send(adapter, { ...chat, stream: true })));
      expect(out.errors).toHaveLength(1);
    });
  }

  test("fixture behaviour replays a recorded stream chunk by chunk", async () => {
    mock.setScript({ format: "anthropic" }, { kind: "fixture", file: "anthropic/tool-use.chunks.txt", gapMs: 1 });
    const out = assemble(await streamEvents("anthropic", await send("anthropic", { ...chat, stream: true })));
    expect(out.tools.map((t) => t.id)).toEqual(["toolu_01T1x1fJ34qAmk2tNTrN7Up6", "toolu_01VHjnBqEw3C2mXUzMZEGKrc"]);
  });

  test("a script array plays in order and repeats its last behaviour", async () => {
    mock.setScript({ provider: "alpha" }, [
      { kind: "error", status: 503 },
      { kind: "reply", text: "ok" },
    ]);
    expect((await send("openai", chat)).status).toBe(503);
    expect((await send("openai", chat)).status).toBe(200);
    expect((await send("openai", chat)).status).toBe(200);
  });

  test("the usage chunk is only streamed when the request asks for it, as OpenAI does", async () => {
    const built = adapterFor("openai").buildRequest({ ...chat, stream: true }, targetOn("openai"));
    const body = JSON.parse(built.body);
    delete body.stream_options;
    const res = await fetch(built.url, { method: "POST", headers: built.headers, body: JSON.stringify(body) });
    expect(await res.text()).not.toContain('"usage"');
  });

  test("delayMs holds the first byte back", async () => {
    mock.setScript({ provider: "alpha" }, { kind: "reply", delayMs: 150 });
    const started = Date.now();
    await send("openai", chat);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  test("hangAfterChunks stalls mid-stream, and a client abort is recorded", async () => {
    mock.setScript({ provider: "alpha" }, { kind: "reply", text: "one two three four", hangAfterChunks: 2 });
    const controller = new AbortController();
    const built = adapterFor("openai").buildRequest({ ...chat, stream: true }, targetOn("openai"));
    const res = await fetch(built.url, { method: "POST", headers: built.headers, body: built.body, signal: controller.signal });
    const reader = res.body!.getReader();
    let received = "";
    const decoder = new TextDecoder();
    while (received.split("\n\n").length - 1 < 2) received += decoder.decode((await reader.read()).value);
    const stalled = await Promise.race([reader.read().then(() => "data"), Bun.sleep(100).then(() => "stalled")]);
    expect(stalled).toBe("stalled");
    controller.abort();
    const deadline = Date.now() + 2000;
    while (!mock.requests[0].aborted && Date.now() < deadline) await Bun.sleep(5);
    expect(mock.requests[0].aborted).toBe(true);
  });

  test("unknown paths answer 404", async () => {
    expect((await fetch(`${mock.url}/p/alpha/v2/nothing`)).status).toBe(404);
  });
});
