import { describe, expect, test } from "bun:test";
import { openAIResponsesAdapter as adapter } from "../../../src/providers/openai-responses/adapter";
import { UpstreamProtocolError } from "../../../src/providers/upstream-errors";
import { readFixture } from "../../support/mock-upstream-wire";
import { target } from "./stream-harness";

const parse = (file: string) => adapter.parseResponse(JSON.parse(readFixture(`openai-responses/${file}`)), target("openai"));

describe("openai-responses parseResponse", () => {
  test("maps a text answer (an empty reasoning item kept by its id) with its id, time, model and usage", () => {
    const result = parse("text.json");
    expect(result).toMatchObject({
      id: "resp_68f9a1c0a1b2c3d4e5f60718293a4b5c",
      created: 1761234567,
      model: "gpt-5.5-pro-2026-04-23",
      systemFingerprint: null,
    });
    expect(result.choices).toEqual([
      {
        index: 0,
        message: {
          role: "assistant",
          content: "Hello! Grüße 👋 — how can I help?",
          refusal: null,
          reasoning_details: [
            { type: "reasoning.summary", summary: "", format: "openai-responses-v1", id: "rs_68f9a1c2b3d4e5f60718293a4b5c6d7e" },
          ],
        },
        logprobs: null,
        finish_reason: "stop",
      },
    ]);
    expect(result.usage).toEqual({ inputTokens: 19, outputTokens: 210, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 192 });
  });

  test("maps function_call items to tool_calls with call_id as the id, and cached and reasoning tokens", () => {
    const result = parse("tool-calls.json");
    expect(result.choices[0].finish_reason).toBe("tool_calls");
    expect(result.choices[0].message.content).toBeNull();
    expect(result.choices[0].message.tool_calls).toEqual([
      {
        id: "call_DdmO9pD3xa9XTPNJ32zg2hcA",
        type: "function",
        function: { name: "get_weather", arguments: '{"location":"Paris, France"}' },
      },
      {
        id: "call_ABb3oPZFkHtW4ypJ3bLgmFCs",
        type: "function",
        function: { name: "get_weather", arguments: '{"location":"Bogotá, Colombia"}' },
      },
    ]);
    expect(result.usage).toEqual({ inputTokens: 2100, outputTokens: 900, cachedTokens: 1920, cacheWriteTokens: 0, reasoningTokens: 768 });
  });

  test("an incomplete response cut by max_output_tokens finishes with length", () => {
    const result = parse("incomplete.json");
    expect(result.choices[0].finish_reason).toBe("length");
    expect(result.choices[0].message.content).toBe("Once upon a");
  });

  test("an incomplete response stopped by the content filter finishes with content_filter", () => {
    const json = { id: "resp_1", status: "incomplete", incomplete_details: { reason: "content_filter" }, output: [], usage: null };
    expect(adapter.parseResponse(json, target("openai")).choices[0]).toMatchObject({
      finish_reason: "content_filter",
      message: { content: null },
    });
  });

  test("refusal parts become the message refusal; missing fields default", () => {
    const json = {
      status: "completed",
      output: [{ type: "message", role: "assistant", content: [{ type: "refusal", refusal: "I can't help with that." }] }],
    };
    const result = adapter.parseResponse(json, target("openai"));
    expect(result.choices[0].message).toEqual({ role: "assistant", content: null, refusal: "I can't help with that." });
    expect(result.model).toBe("model-x");
    expect(result.id.startsWith("resp_")).toBe(true);
    expect(result.usage).toEqual({ inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
  });

  test("throws a protocol error on a body without output or on a failed response", () => {
    expect(() => adapter.parseResponse({ error: { message: "upstream down" } }, target("openai"))).toThrow(UpstreamProtocolError);
    expect(() => adapter.parseResponse({ error: { message: "upstream down" } }, target("openai"))).toThrow("upstream down");
    const failed = { status: "failed", output: [], error: { code: "server_error", message: "The server had an error" } };
    expect(() => adapter.parseResponse(failed, target("openai"))).toThrow("The server had an error");
  });
});

describe("openai-responses classifyError", () => {
  test("reads OpenAI's error body, its status rule and Retry-After", () => {
    const error = adapter.classifyError(429, readFixture("openai-responses/error-429.json"), new Headers({ "retry-after": "2" }));
    expect(error).toMatchObject({ code: "rate_limited", status: 429, retryable: true, retryAfterMs: 2000 });
    expect(error.message.startsWith("Rate limit reached for gpt-5.5-pro")).toBe(true);
  });

  test("a 400 is the caller's fault and not retried; an HTML 502 gets a generic message", () => {
    expect(adapter.classifyError(400, '{"error":{"message":"Unsupported parameter: \'stop\'"}}', new Headers())).toEqual({
      code: "invalid_request",
      status: 400,
      retryable: false,
      message: "Unsupported parameter: 'stop'",
    });
    expect(adapter.classifyError(502, "<html>bad gateway</html>", new Headers())).toEqual({
      code: "provider_error",
      status: 502,
      retryable: true,
      message: "Upstream answered HTTP 502",
    });
  });
});
