import { describe, expect, test } from "bun:test";
import { openAICompatibleAdapter as adapter } from "../../../src/providers/openai-compatible/adapter";
import type { ChatRequest } from "../../../src/providers/types";
import { fixtureSseEvents, readFixture } from "../../support/mock-upstream-wire";
import { assemble, runStream, target } from "./stream-harness";

const base: ChatRequest = { model: "acme/chat-small", messages: [{ role: "user", content: "Hi" }] };

describe("openai-compatible buildRequest", () => {
  test("posts to {baseUrl}/chat/completions with a Bearer credential", () => {
    const built = adapter.buildRequest(base, target("openai", { baseUrl: "http://h/v1/" }));
    expect(built.url).toBe("http://h/v1/chat/completions");
    expect(built.headers.authorization).toBe("Bearer sk-test-key-123456");
    expect(built.warnings).toEqual([]);
  });

  test("replaces the model with the route's provider model id", () => {
    const body = JSON.parse(adapter.buildRequest(base, target("openai")).body);
    expect(body.model).toBe("model-x");
  });

  test("passes unknown top-level fields through and merges extensions over them", () => {
    const req: ChatRequest = { ...base, top_k: 3, service_tier: "flex" };
    const body = JSON.parse(adapter.buildRequest(req, target("openai", { extensions: { top_k: 5, min_p: 0.1 } })).body);
    expect(body).toMatchObject({ top_k: 5, min_p: 0.1, service_tier: "flex", messages: base.messages });
  });

  test("forces stream_options.include_usage on streams, keeping other stream options", () => {
    const req: ChatRequest = { ...base, stream: true, stream_options: { include_usage: false, extra: 1 } as never };
    const body = JSON.parse(adapter.buildRequest(req, target("openai")).body);
    expect(body.stream_options).toEqual({ include_usage: true, extra: 1 });
  });

  test("sends no stream_options on non-streaming requests", () => {
    expect(JSON.parse(adapter.buildRequest(base, target("openai")).body).stream_options).toBeUndefined();
  });

  test("sends no Authorization header for a local server without a credential", () => {
    expect(adapter.buildRequest(base, target("openai", { apiKey: null })).headers.authorization).toBeUndefined();
  });
});

describe("openai-compatible parseResponse", () => {
  test("maps a text answer and its usage", () => {
    const result = adapter.parseResponse(JSON.parse(readFixture("openai/text.json")), target("openai"));
    expect(result.choices[0]).toEqual({
      index: 0,
      message: { role: "assistant", content: "Hello! Grüße 👋 — how can I help?", refusal: null },
      logprobs: null,
      finish_reason: "stop",
    });
    expect(result.usage).toEqual({ inputTokens: 19, outputTokens: 10, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
    expect(result.systemFingerprint).toBe("fp_06737a9306");
  });

  test("maps tool calls and cached prompt tokens", () => {
    const result = adapter.parseResponse(JSON.parse(readFixture("openai/tool-calls.json")), target("openai"));
    expect(result.choices[0].finish_reason).toBe("tool_calls");
    expect(result.choices[0].message.tool_calls?.map((c) => [c.id, c.function.arguments])).toEqual([
      ["call_DdmO9pD3xa9XTPNJ32zg2hcA", '{"location": "Paris, France"}'],
      ["call_ABb3oPZFkHtW4ypJ3bLgmFCs", '{"location": "Bogotá, Colombia"}'],
    ]);
    expect(result.usage.cachedTokens).toBe(1024);
  });

  test("maps completion_tokens_details.reasoning_tokens to reasoningTokens", () => {
    const result = adapter.parseResponse(JSON.parse(readFixture("openai/reasoning.json")), target("openai"));
    expect(result.usage).toEqual({ inputTokens: 2100, outputTokens: 900, cachedTokens: 1920, cacheWriteTokens: 0, reasoningTokens: 768 });
  });

  test("reads DeepSeek's prompt_cache_hit_tokens as cached tokens", () => {
    const json = {
      id: "x",
      created: 1,
      model: "deepseek-chat",
      choices: [],
      usage: { prompt_tokens: 100, completion_tokens: 5, prompt_cache_hit_tokens: 64 },
    };
    expect(adapter.parseResponse(json, target("openai")).usage.cachedTokens).toBe(64);
  });

  test("throws on a 2xx body without choices (a router's 200 error)", () => {
    expect(() => adapter.parseResponse({ error: { message: "upstream down" } }, target("openai"))).toThrow("upstream down");
  });
});

describe("openai-compatible stream", () => {
  test("translates a text stream into deltas, a finish and one usage event", async () => {
    const events = await runStream("openai", fixtureSseEvents("openai", "openai/text.chunks.txt"));
    const out = assemble(events);
    expect(out.content).toBe("Hello! Grüße 👋 — how can I help?");
    expect(out.finishReason).toBe("stop");
    expect(out.usage).toEqual([
      { type: "usage", usage: { inputTokens: 19, outputTokens: 10, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ]);
    expect(events[0]).toMatchObject({
      type: "delta",
      id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
      model: "gpt-4o-mini-2024-07-18",
      delta: { role: "assistant", content: "" },
      finishReason: null,
    });
    expect(events.at(-1)?.type).toBe("usage");
  });

  test("keeps tool call indices, ids and argument fragments", async () => {
    const out = assemble(await runStream("openai", fixtureSseEvents("openai", "openai/tool-calls.chunks.txt")));
    expect(out.tools).toEqual([
      { id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", name: "get_weather", arguments: '{"location": "Paris, France"}' },
      { id: "call_ABb3oPZFkHtW4ypJ3bLgmFCs", name: "get_weather", arguments: '{"location": "Bogotá, Colombia"}' },
    ]);
    expect(out.finishReason).toBe("tool_calls");
    expect(out.usage).toHaveLength(1);
  });

  test("emits zero usage once in flush when the server never sends usage or [DONE]", async () => {
    const events = await runStream("openai", [
      'data: {"id":"a","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}\n\n',
    ]);
    expect(events.filter((e) => e.type === "usage")).toEqual([
      { type: "usage", usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ]);
  });

  test("reads Groq's x_groq.usage", async () => {
    const events = await runStream("openai", [
      'data: {"id":"a","created":1,"model":"m","choices":[],"x_groq":{"usage":{"prompt_tokens":7,"completion_tokens":3}}}\n\n',
      "data: [DONE]\n\n",
    ]);
    expect(events).toEqual([
      { type: "usage", usage: { inputTokens: 7, outputTokens: 3, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ]);
  });

  test("turns a mid-stream error chunk into an error event with its status", async () => {
    const events = await runStream("openai", ['data: {"error":{"code":502,"message":"Provider returned error"}}\n\n']);
    expect(events[0]).toEqual({
      type: "error",
      error: { code: "provider_error", status: 502, retryable: true, message: "Provider returned error" },
    });
  });

  test("turns a non-JSON data event into a malformed-stream error and ignores the rest", async () => {
    const events = await runStream("openai", [
      "data: {oops\n\n",
      'data: {"id":"a","choices":[{"index":0,"delta":{"content":"late"}}]}\n\n',
    ]);
    expect(events.map((e) => e.type)).toEqual(["error", "usage"]);
  });
});
