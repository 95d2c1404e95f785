import { describe, expect, test } from "bun:test";
import { ApiError, ERROR_TABLE, type ErrorCode } from "../../../src/http/errors";
import { ANTHROPIC_ERROR_TYPE, anthropicErrorBody, anthropicErrorResponse } from "../../../src/inference/messages/errors";
import { parseToolInput, renderMessage } from "../../../src/inference/messages/render";
import { chatResult, routing, weatherCall } from "./pipeline-fixtures";

describe("messages render", () => {
  test("a text answer is a Message with one text block, end_turn and routing_metadata", () => {
    const m = renderMessage(chatResult({ content: "Hello" }, "stop"), "msg_fixed");
    expect(m).toEqual({
      id: "msg_fixed",
      type: "message",
      role: "assistant",
      model: "chat-small-2026",
      content: [{ type: "text", text: "Hello" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      // Anthropic counts cache reads and writes apart from input_tokens: 20 - 5 - 3.
      usage: { input_tokens: 12, output_tokens: 7, cache_creation_input_tokens: 3, cache_read_input_tokens: 5 },
      routing_metadata: routing,
    });
  });

  test("tool calls become tool_use blocks with parsed input and stop_reason tool_use", () => {
    const m = renderMessage(chatResult({ content: "Checking.", tool_calls: [weatherCall] }, "tool_calls"));
    expect(m.content).toEqual([
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
    ]);
    expect(m.stop_reason).toBe("tool_use");
    expect(m.id).toMatch(/^msg_[A-Za-z0-9]{24}$/);
  });

  test("finish reasons map to Anthropic stop reasons", () => {
    expect(renderMessage(chatResult({ content: "a" }, "length")).stop_reason).toBe("max_tokens");
    expect(renderMessage(chatResult({ content: "a" }, "content_filter")).stop_reason).toBe("refusal");
  });

  test("a tool-only answer has no text block", () => {
    expect(renderMessage(chatResult({ tool_calls: [weatherCall] }, "tool_calls")).content.map((b) => b.type)).toEqual(["tool_use"]);
  });

  test("malformed or non-object tool arguments become an empty input object", () => {
    expect(parseToolInput("{not json")).toEqual({});
    expect(parseToolInput("")).toEqual({});
    expect(parseToolInput("[1]")).toEqual({});
    expect(parseToolInput('{"a":1}')).toEqual({ a: 1 });
  });
});

describe("messages errors", () => {
  test("every error code maps to one of Anthropic's error types", () => {
    const allowed = [
      "invalid_request_error",
      "authentication_error",
      "permission_error",
      "not_found_error",
      "rate_limit_error",
      "request_too_large",
      "api_error",
      "overloaded_error",
    ];
    for (const code of Object.keys(ERROR_TABLE) as ErrorCode[]) expect(allowed).toContain(ANTHROPIC_ERROR_TYPE[code]);
    expect(ANTHROPIC_ERROR_TYPE.invalid_api_key).toBe("authentication_error");
    expect(ANTHROPIC_ERROR_TYPE.model_not_found).toBe("not_found_error");
    expect(ANTHROPIC_ERROR_TYPE.request_too_large).toBe("request_too_large");
    expect(ANTHROPIC_ERROR_TYPE.rate_limit_exceeded).toBe("rate_limit_error");
    expect(ANTHROPIC_ERROR_TYPE.no_provider_available).toBe("overloaded_error");
  });

  test("the body has Anthropic's shape; unknown codes are api_error", () => {
    expect(anthropicErrorBody("invalid_parameter", "'max_tokens' is required.")).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "'max_tokens' is required." },
    });
    expect(anthropicErrorBody("something_new", "x", "req_1")).toEqual({
      type: "error",
      error: { type: "api_error", message: "x" },
      request_id: "req_1",
    });
  });

  test("the response keeps our status, Retry-After and the request id headers", async () => {
    const res = anthropicErrorResponse(new ApiError("rate_limit_exceeded", "Slow down", { retryAfterSeconds: 2.2 }), "req_9");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("3");
    expect(res.headers.get("x-request-id")).toBe("req_9");
    expect(res.headers.get("request-id")).toBe("req_9");
    expect(await res.json()).toEqual({ type: "error", error: { type: "rate_limit_error", message: "Slow down" }, request_id: "req_9" });
  });
});
