import { describe, expect, test } from "bun:test";
import { openAIResponsesAdapter as adapter } from "../../../src/providers/openai-responses/adapter";
import type { StreamEvent } from "../../../src/providers/types";
import { fixtureSseEvents } from "../../support/mock-upstream-wire";
import { assemble, bytesStream, collect, target } from "./stream-harness";

const run = (pieces: (string | Uint8Array)[]): Promise<StreamEvent[]> =>
  collect(bytesStream(pieces).pipeThrough(adapter.streamTransform(target("openai"))));
const fixture = (name: string) => fixtureSseEvents("openai-responses", `openai-responses/${name}.chunks.txt`);
const frame = (payload: object) => `event: ${(payload as { type: string }).type}\ndata: ${JSON.stringify(payload)}\n\n`;
const deltas = (events: StreamEvent[]) => events.filter((e): e is Extract<StreamEvent, { type: "delta" }> => e.type === "delta");

describe("openai-responses stream translation", () => {
  test("text: a role delta, one content delta per text delta, the finish, then usage once", async () => {
    const events = await run(fixture("text"));
    const out = deltas(events);
    expect(out[0]).toEqual({
      type: "delta",
      id: "resp_68f9a1c0a1b2c3d4e5f60718293a4b5c",
      created: 1761234567,
      model: "gpt-5.5-pro-2026-04-23",
      choiceIndex: 0,
      delta: { role: "assistant", content: "" },
      finishReason: null,
    });
    // The reasoning item has nothing in it but its id, which still comes as its entry.
    expect(out[1].delta).toEqual({
      extra: {
        reasoning_details: [
          { type: "reasoning.summary", summary: "", format: "openai-responses-v1", index: 0, id: "rs_68f9a1c2b3d4e5f60718293a4b5c6d7e" },
        ],
      },
    });
    expect(out.slice(2, -1).map((e) => e.delta)).toEqual(
      ["Hello", "! Grüße", " 👋", " —", " how", " can", " I", " help", "?"].map((content) => ({ content })),
    );
    expect(out[out.length - 1]).toMatchObject({ delta: {}, finishReason: "stop" });
    expect(events[events.length - 1]).toEqual({
      type: "usage",
      usage: { inputTokens: 19, outputTokens: 210, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 192 },
    });
    expect(assemble(events)).toMatchObject({ content: "Hello! Grüße 👋 — how can I help?", finishReason: "stop", errors: [] });
    expect(assemble(events).usage).toHaveLength(1);
  });

  test("function calls: numbered from 0 despite the reasoning item, id = call_id, arguments streamed once", async () => {
    const events = await run(fixture("tool-calls"));
    const out = assemble(events);
    expect(out.tools).toEqual([
      { id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", name: "get_weather", arguments: '{"location":"Paris, France"}' },
      { id: "call_ABb3oPZFkHtW4ypJ3bLgmFCs", name: "get_weather", arguments: '{"location":"Bogotá, Colombia"}' },
    ]);
    expect(out.finishReason).toBe("tool_calls");
    expect(deltas(events)[2].delta).toEqual({
      tool_calls: [{ index: 0, id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", type: "function", function: { name: "get_weather", arguments: "" } }],
    });
    expect(out.usage).toEqual([
      { type: "usage", usage: { inputTokens: 2100, outputTokens: 900, cachedTokens: 1920, cacheWriteTokens: 0, reasoningTokens: 768 } },
    ]);
  });

  test("response.incomplete with max_output_tokens finishes with length and still reports usage", async () => {
    const out = assemble(await run(fixture("incomplete")));
    expect(out).toMatchObject({ content: "Once upon a", finishReason: "length", errors: [] });
    expect(out.usage).toEqual([
      { type: "usage", usage: { inputTokens: 12, outputTokens: 64, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 60 } },
    ]);
  });

  test("a call sent whole in output_item.done (no argument deltas) is still delivered once", async () => {
    const item = { type: "function_call", id: "fc_1", call_id: "call_1", name: "lookup", arguments: '{"q":"x"}' };
    const events = await run([
      frame({ type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "" } }),
      frame({ type: "response.output_item.done", output_index: 0, item }),
      frame({ type: "response.output_item.done", output_index: 1, item: { ...item, id: "fc_2", call_id: "call_2" } }),
      frame({ type: "response.completed", response: { status: "completed", usage: { input_tokens: 3, output_tokens: 4 } } }),
    ]);
    expect(assemble(events).tools).toEqual([
      { id: "call_1", name: "lookup", arguments: '{"q":"x"}' },
      { id: "call_2", name: "lookup", arguments: '{"q":"x"}' },
    ]);
  });

  test("refusal deltas become refusal deltas; content_filter finishes with content_filter", async () => {
    const events = await run([
      frame({ type: "response.refusal.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: "I can't" }),
      frame({ type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "content_filter" } } }),
    ]);
    expect(deltas(events).map((e) => [e.delta, e.finishReason])).toEqual([
      [{ refusal: "I can't" }, null],
      [{}, "content_filter"],
    ]);
  });

  test("nothing after the terminal event is translated", async () => {
    const events = await run([...fixture("text"), frame({ type: "response.output_text.delta", delta: "late" })]);
    expect(assemble(events).content).toBe("Hello! Grüße 👋 — how can I help?");
    expect(events[events.length - 1].type).toBe("usage");
  });

  test("a stream cut before its terminal event still ends with exactly one (zero) usage event", async () => {
    const events = await run(fixture("text").slice(0, 8));
    expect(assemble(events).finishReason).toBeNull();
    expect(events.filter((e) => e.type === "usage")).toEqual([
      { type: "usage", usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ]);
  });
});

describe("openai-responses stream errors", () => {
  test("response.failed → a retryable provider error, then the failed response's usage", async () => {
    const events = await run(fixture("failed"));
    const out = assemble(events);
    expect(out.errors).toEqual([
      {
        type: "error",
        error: {
          code: "provider_error",
          status: 500,
          retryable: true,
          message: "The server had an error processing your request. Sorry about that!",
        },
      },
    ]);
    expect(events[events.length - 1]).toEqual({
      type: "usage",
      usage: { inputTokens: 40, outputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
  });

  test("an error event with rate_limit_exceeded → rate_limited, retryable", async () => {
    const out = assemble(await run(fixture("error-event")));
    expect(out.errors).toEqual([
      {
        type: "error",
        error: {
          code: "rate_limited",
          status: 429,
          retryable: true,
          message: "Rate limit reached for gpt-5.5-pro. Please try again in 1.4s.",
        },
      },
    ]);
    expect(out.usage).toHaveLength(1);
  });

  test("a failure caused by the prompt is not retryable; a nested error shape is read too", async () => {
    const failed = {
      type: "response.failed",
      response: { status: "failed", error: { code: "invalid_prompt", message: "Invalid prompt" } },
    };
    expect(assemble(await run([frame(failed)])).errors[0]).toMatchObject({
      error: { code: "invalid_request", status: 400, retryable: false },
    });
    const nested = { type: "error", error: { type: "server_error", code: "server_error", message: "boom" } };
    expect(assemble(await run([frame(nested)])).errors[0]).toMatchObject({
      error: { code: "provider_error", status: 500, retryable: true, message: "boom" },
    });
  });

  test("a non-JSON event ends the translation with one malformed-stream error", async () => {
    const events = await run([fixture("text")[0], "event: response.output_text.delta\ndata: {not json\n\n", fixture("text")[5]]);
    const out = assemble(events);
    expect(out.errors).toHaveLength(1);
    expect(out.errors[0]).toMatchObject({ error: { code: "provider_error", status: 502, retryable: true } });
    expect(out.content).toBe("");
  });
});

describe("openai-responses stream translation is independent of byte boundaries", () => {
  for (const name of ["text", "tool-calls", "incomplete", "failed"]) {
    test(`${name}.chunks.txt: every two-piece split yields the events of the whole body`, async () => {
      const bytes = new TextEncoder().encode(fixture(name).join(""));
      const whole = await run([bytes]);
      expect(whole.length).toBeGreaterThan(2);
      for (let cut = 1; cut < bytes.length; cut++) {
        const split = await run([bytes.slice(0, cut), bytes.slice(cut)]);
        if (!Bun.deepEquals(split, whole)) expect({ cut, split }).toEqual({ cut, split: whole });
      }
    });
  }

  test("CRLF framing and one byte at a time give the same events", async () => {
    const text = fixture("tool-calls").join("");
    const whole = await run([text]);
    const bytes = new TextEncoder().encode(text.replaceAll("\n", "\r\n"));
    expect(await run([...bytes].map((b) => new Uint8Array([b])))).toEqual(whole);
  });
});
