import { describe, expect, test } from "bun:test";
import { anthropicAdapter as adapter } from "../../../src/providers/anthropic/adapter";
import { fixtureSseEvents, readFixture } from "../../support/mock-upstream-wire";
import { assemble, runStream, target } from "./stream-harness";

describe("anthropic parseResponse", () => {
  test("maps text content, end_turn → stop and usage", () => {
    const result = adapter.parseResponse(JSON.parse(readFixture("anthropic/text.json")), target("anthropic"));
    expect(result.id).toBe("msg_01XFDUDYJgAACzvnptvVoYEL");
    expect(result.choices).toEqual([
      {
        index: 0,
        message: { role: "assistant", content: "Hello! Grüße 👋 — how can I help?", refusal: null },
        logprobs: null,
        finish_reason: "stop",
      },
    ]);
    expect(result.usage).toEqual({ inputTokens: 25, outputTokens: 15, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
  });

  test("maps tool_use blocks to tool_calls and counts cache reads and writes inside inputTokens", () => {
    const result = adapter.parseResponse(JSON.parse(readFixture("anthropic/tool-use.json")), target("anthropic"));
    expect(result.choices[0].finish_reason).toBe("tool_calls");
    expect(result.choices[0].message.content).toBe("I'll check the weather in both cities.");
    expect(result.choices[0].message.tool_calls).toEqual([
      {
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        type: "function",
        function: { name: "get_weather", arguments: '{"location":"Paris, France"}' },
      },
      {
        id: "toolu_01VHjnBqEw3C2mXUzMZEGKrc",
        type: "function",
        function: { name: "get_weather", arguments: '{"location":"Bogotá, Colombia"}' },
      },
    ]);
    expect(result.usage).toEqual({
      inputTokens: 472 + 2048 + 512,
      outputTokens: 89,
      cachedTokens: 2048,
      cacheWriteTokens: 512,
      reasoningTokens: 0,
    });
  });

  test("maps max_tokens → length; thinking blocks become reasoning_content, out of the content", () => {
    const result = adapter.parseResponse(JSON.parse(readFixture("anthropic/max-tokens.json")), target("anthropic"));
    expect(result.choices[0]).toMatchObject({
      finish_reason: "length",
      message: { content: "One, two, three", reasoning_content: "Let me count…" },
    });
  });

  test("maps stop_sequence → stop", () => {
    const json = { ...JSON.parse(readFixture("anthropic/text.json")), stop_reason: "stop_sequence", stop_sequence: "END" };
    expect(adapter.parseResponse(json, target("anthropic")).choices[0].finish_reason).toBe("stop");
  });
});

describe("anthropic stream", () => {
  test("thinking deltas stream as reasoning_content before the text", async () => {
    const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    const events = await runStream("anthropic", [
      sse("message_start", {
        type: "message_start",
        message: { id: "msg_1", model: "claude", usage: { input_tokens: 5, output_tokens: 0 } },
      }),
      sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } }),
      sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Two and " } }),
      sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "two." } }),
      sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } }),
      sse("content_block_stop", { type: "content_block_stop", index: 0 }),
      sse("content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }),
      sse("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "4" } }),
      sse("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } }),
      sse("message_stop", { type: "message_stop" }),
    ]);
    const deltas = events.flatMap((e) => (e.type === "delta" ? [e.delta] : []));
    expect(deltas.flatMap((d) => (typeof d.extra?.reasoning_content === "string" ? [d.extra.reasoning_content] : []))).toEqual([
      "Two and ",
      "two.",
    ]);
    expect(assemble(events).content).toBe("4");
    // The first reasoning delta comes before the text's, in order.
    expect(deltas.findIndex((d) => d.extra !== undefined)).toBeLessThan(deltas.findIndex((d) => d.content === "4"));
  });

  test("translates a text stream: role delta, text deltas, finish, one usage at message_stop", async () => {
    const events = await runStream("anthropic", fixtureSseEvents("anthropic", "anthropic/text.chunks.txt"));
    const out = assemble(events);
    expect(out.content).toBe("Hello! Grüße 👋 — how can I help?");
    expect(out.finishReason).toBe("stop");
    expect(events[0]).toMatchObject({
      type: "delta",
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      model: "claude-sonnet-4-5-20250929",
      delta: { role: "assistant" },
    });
    expect(out.usage).toEqual([
      { type: "usage", usage: { inputTokens: 25, outputTokens: 15, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ]);
    expect(events.at(-1)?.type).toBe("usage");
  });

  test("numbers tool_use blocks as tool_calls indices 0..n and streams input_json_delta as arguments", async () => {
    const events = await runStream("anthropic", fixtureSseEvents("anthropic", "anthropic/tool-use.chunks.txt"));
    const out = assemble(events);
    expect(out.content).toBe("I'll check the weather in both cities.");
    expect(out.tools).toEqual([
      { id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", arguments: '{"location": "Paris, France"}' },
      { id: "toolu_01VHjnBqEw3C2mXUzMZEGKrc", name: "get_weather", arguments: '{"location": "Bogotá, Colombia"}' },
    ]);
    expect(out.finishReason).toBe("tool_calls");
    expect(out.usage).toEqual([
      { type: "usage", usage: { inputTokens: 3032, outputTokens: 89, cachedTokens: 2048, cacheWriteTokens: 512, reasoningTokens: 0 } },
    ]);
  });

  test("turns an error event into an error with the status of its type (overloaded → 529, retryable)", async () => {
    const events = await runStream("anthropic", fixtureSseEvents("anthropic", "anthropic/stream-error.chunks.txt"));
    const out = assemble(events);
    expect(out.content).toBe("Once upon");
    expect(out.errors).toEqual([{ type: "error", error: { code: "provider_error", status: 529, retryable: true, message: "Overloaded" } }]);
    expect(out.usage).toHaveLength(1);
  });

  test("emits usage in flush when the stream ends without message_stop", async () => {
    const lines = fixtureSseEvents("anthropic", "anthropic/text.chunks.txt").slice(0, -1);
    expect(assemble(await runStream("anthropic", lines)).usage).toHaveLength(1);
  });
});
