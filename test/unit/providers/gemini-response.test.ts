import { describe, expect, test } from "bun:test";
import { geminiAdapter as adapter } from "../../../src/providers/gemini/adapter";
import { fixtureSseEvents, readFixture } from "../../support/mock-upstream-wire";
import { assemble, runStream, target } from "./stream-harness";

const t = target("gemini", { providerModelId: "gemini-2.5-flash" });

describe("gemini parseResponse", () => {
  test("maps text parts, STOP → stop, and usage with thoughts counted as reasoning output", () => {
    const result = adapter.parseResponse(JSON.parse(readFixture("gemini/text.json")), t);
    expect(result.id).toBe("2FBEaOyqMPa1mtkPwKvb-QE");
    expect(result.model).toBe("gemini-2.5-flash");
    expect(result.choices).toEqual([
      {
        index: 0,
        message: { role: "assistant", content: "Hello! Grüße 👋 — how can I help?", refusal: null },
        logprobs: null,
        finish_reason: "stop",
      },
    ]);
    expect(result.usage).toEqual({ inputTokens: 9, outputTokens: 13 + 29, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 29 });
  });

  test("maps functionCall parts to tool_calls with synthesized stable ids, thought parts to reasoning, not content", () => {
    const json = JSON.parse(readFixture("gemini/function-call.json"));
    const first = adapter.parseResponse(json, t);
    const again = adapter.parseResponse(json, t);
    expect(first.choices[0].message.content).toBeNull();
    expect(first.choices[0].finish_reason).toBe("tool_calls");
    expect(first.choices[0].message.tool_calls).toEqual([
      {
        id: "call_kFBEaPzNGe6nmtkP0Iai0Qk_0",
        type: "function",
        function: { name: "get_weather", arguments: '{"location":"Paris, France"}' },
      },
      {
        id: "call_kFBEaPzNGe6nmtkP0Iai0Qk_1",
        type: "function",
        function: { name: "get_weather", arguments: '{"location":"Bogotá, Colombia"}' },
      },
    ]);
    expect(again.choices[0].message.tool_calls?.map((c) => c.id)).toEqual(first.choices[0].message.tool_calls!.map((c) => c.id));
    expect(first.choices[0].message.reasoning_content).toBe("Checking both cities.");
    expect(first.usage).toEqual({ inputTokens: 96, outputTokens: 84, cachedTokens: 64, cacheWriteTokens: 0, reasoningTokens: 50 });
  });

  test("maps MAX_TOKENS → length", () => {
    expect(adapter.parseResponse(JSON.parse(readFixture("gemini/max-tokens.json")), t).choices[0].finish_reason).toBe("length");
  });

  test("maps SAFETY, RECITATION and a blocked prompt → content_filter", () => {
    const text = JSON.parse(readFixture("gemini/text.json"));
    for (const reason of ["SAFETY", "RECITATION", "PROHIBITED_CONTENT"]) {
      text.candidates[0].finishReason = reason;
      expect(adapter.parseResponse(text, t).choices[0].finish_reason).toBe("content_filter");
    }
    const blocked = adapter.parseResponse(JSON.parse(readFixture("gemini/safety-blocked.json")), t);
    expect(blocked.choices).toEqual([
      { index: 0, message: { role: "assistant", content: null, refusal: null }, logprobs: null, finish_reason: "content_filter" },
    ]);
  });
});

describe("gemini stream", () => {
  test("translates a text stream: role delta, text deltas, finish, one usage (the last cumulative) in flush", async () => {
    const events = await runStream("gemini", fixtureSseEvents("gemini", "gemini/text.chunks.txt"), t);
    const out = assemble(events);
    expect(out.content).toBe("Hello! Grüße 👋 — how can I help?");
    expect(out.finishReason).toBe("stop");
    expect(events[0]).toMatchObject({ type: "delta", id: "2FBEaOyqMPa1mtkPwKvb-QE", delta: { role: "assistant" } });
    expect(out.usage).toEqual([
      { type: "usage", usage: { inputTokens: 9, outputTokens: 42, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 29 } },
    ]);
  });

  test("turns each functionCall part into a complete tool call with the same ids as the JSON path", async () => {
    const out = assemble(await runStream("gemini", fixtureSseEvents("gemini", "gemini/function-call.chunks.txt"), t));
    expect(out.tools).toEqual([
      { id: "call_2FBEaOyqMPa1mtkPwKvb-QE_0", name: "get_weather", arguments: '{"location":"Paris, France"}' },
      { id: "call_2FBEaOyqMPa1mtkPwKvb-QE_1", name: "get_weather", arguments: '{"location":"Bogotá, Colombia"}' },
    ]);
    expect(out.finishReason).toBe("tool_calls");
    expect(out.usage[0]).toEqual({
      type: "usage",
      usage: { inputTokens: 96, outputTokens: 84, cachedTokens: 64, cacheWriteTokens: 0, reasoningTokens: 50 },
    });
  });

  test("turns an error object in the stream into an error event", async () => {
    const events = await runStream(
      "gemini",
      ['data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n\r\n'],
      t,
    );
    expect(events[0]).toEqual({
      type: "error",
      error: { code: "provider_error", status: 503, retryable: true, message: "The model is overloaded." },
    });
    expect(events.filter((e) => e.type === "usage")).toHaveLength(1);
  });
});
