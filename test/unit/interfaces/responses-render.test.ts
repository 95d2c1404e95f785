import { describe, expect, test } from "bun:test";
import { renderResponse } from "../../../src/inference/responses/render";
import { responsesEcho } from "../../../src/inference/responses/to-chat";
import { chatResult, routing, weatherCall } from "./pipeline-fixtures";

const echo = responsesEcho({ model: "acme/chat-small", input: "hi", instructions: "Be brief.", temperature: 0.5 });

describe("responses render", () => {
  test("a text answer is a completed response with one message item and output_text", () => {
    const r = renderResponse(chatResult({ content: "Hello world" }, "stop"), echo, "resp_fixed");
    expect(r).toMatchObject({
      id: "resp_fixed",
      object: "response",
      created_at: 1_700_000_000,
      model: "chat-small-2026",
      status: "completed",
      error: null,
      incomplete_details: null,
      instructions: "Be brief.",
      temperature: 0.5,
      top_p: null,
      parallel_tool_calls: true,
      tool_choice: "auto",
      tools: [],
      metadata: {},
      output_text: "Hello world",
      routing_metadata: routing,
    });
    expect(r.output).toHaveLength(1);
    expect(r.output[0]).toMatchObject({
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Hello world", annotations: [] }],
    });
    expect(r.output[0]!.id).toMatch(/^msg_[A-Za-z0-9]{24}$/);
  });

  test("usage carries the detail fields and a total", () => {
    const r = renderResponse(chatResult({ content: "x" }, "stop"), echo);
    expect(r.usage).toEqual({
      input_tokens: 20,
      input_tokens_details: { cached_tokens: 5, cache_write_tokens: 3 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 2 },
      total_tokens: 27,
    });
    expect(r.id).toMatch(/^resp_[A-Za-z0-9]{24}$/);
  });

  test("tool calls become function_call items after the message", () => {
    const r = renderResponse(chatResult({ content: "Let me check.", tool_calls: [weatherCall] }, "tool_calls"), echo);
    expect(r.status).toBe("completed");
    expect(r.output.map((i) => i.type)).toEqual(["message", "function_call"]);
    const call = r.output[1]!;
    expect(call).toMatchObject({
      type: "function_call",
      call_id: "call_1",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
      status: "completed",
    });
    expect(call.id).toMatch(/^fc_/);
  });

  test("a tool-only answer has no message item and empty output_text", () => {
    const r = renderResponse(chatResult({ content: null, tool_calls: [weatherCall] }, "tool_calls"), echo);
    expect(r.output.map((i) => i.type)).toEqual(["function_call"]);
    expect(r.output_text).toBe("");
  });

  test("a cut by the token limit is incomplete with reason max_output_tokens", () => {
    const r = renderResponse(chatResult({ content: "Once upon" }, "length"), echo);
    expect(r.status).toBe("incomplete");
    expect(r.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(r.output[0]).toMatchObject({ type: "message", status: "incomplete" });
  });

  test("a refusal is a refusal content part", () => {
    const r = renderResponse(chatResult({ refusal: "I can't help with that." }, "stop"), echo);
    expect(r.output[0]).toMatchObject({ type: "message", content: [{ type: "refusal", refusal: "I can't help with that." }] });
    expect(r.output_text).toBe("");
  });
});
