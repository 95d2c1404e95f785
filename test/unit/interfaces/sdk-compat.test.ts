// The official SDKs parse what our renderers and encoders write: each SDK gets a custom fetch that
// answers with our bytes, so their own parsers and stream accumulators run with no server.
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ApiError } from "../../../src/http/errors";
import { anthropicErrorResponse } from "../../../src/inference/messages/errors";
import { renderMessage } from "../../../src/inference/messages/render";
import { messagesStreamEncoder } from "../../../src/inference/messages/stream";
import { renderResponse } from "../../../src/inference/responses/render";
import { responsesStreamEncoder } from "../../../src/inference/responses/stream";
import { responsesEcho } from "../../../src/inference/responses/to-chat";
import type { PipelineEvent } from "../../../src/inference/types";
import {
  chatResult,
  encode,
  fetchReturning,
  lengthEvents,
  midStreamFailureEvents,
  routing,
  textEvents,
  toolEvents,
  weatherCall,
} from "./pipeline-fixtures";

const SSE = { status: 200, headers: { "content-type": "text/event-stream" } };
const JSON_OK = { status: 200, headers: { "content-type": "application/json" } };

const openai = (fetch: typeof globalThis.fetch) =>
  new OpenAI({ apiKey: "sk-test", baseURL: "http://gateway.invalid/v1", fetch, maxRetries: 0 });
const anthropic = (fetch: typeof globalThis.fetch) =>
  new Anthropic({ apiKey: "sk-test", baseURL: "http://gateway.invalid", fetch, maxRetries: 0 });

const echo = responsesEcho({ model: "acme/chat-small", input: "hi" });
const responsesSse = (events: PipelineEvent[]) => encode(responsesStreamEncoder(echo), events);
const messagesSse = (events: PipelineEvent[]) => encode(messagesStreamEncoder({ model: "acme/chat-small" }), events);

describe("openai SDK reads the Responses interface", () => {
  test("responses.create parses the rendered object", async () => {
    const body = JSON.stringify(renderResponse(chatResult({ content: "Hello world" }, "stop"), echo));
    const r = await openai(fetchReturning(body, JSON_OK)).responses.create({ model: "acme/chat-small", input: "hi" });
    expect(r.status).toBe("completed");
    expect(r.output_text).toBe("Hello world");
    expect(r.usage?.input_tokens_details.cached_tokens).toBe(5);
  });

  test("responses.stream().finalResponse() accumulates a text stream", async () => {
    const stream = openai(fetchReturning(await responsesSse(textEvents), SSE)).responses.stream({ model: "acme/chat-small", input: "hi" });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
    const r = await stream.finalResponse();
    expect(deltas).toEqual(["Hello", " world"]);
    expect(r.status).toBe("completed");
    expect(r.output_text).toBe("Hello world");
    expect(r.usage?.total_tokens).toBe(27);
    expect((r as unknown as { routing_metadata: unknown }).routing_metadata).toEqual(routing);
  });

  test("responses.stream() accumulates a function call with its arguments", async () => {
    const stream = openai(fetchReturning(await responsesSse(toolEvents), SSE)).responses.stream({
      model: "acme/chat-small",
      input: "weather?",
    });
    const r = await stream.finalResponse();
    const call = r.output.find((o) => o.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' });
    expect(r.output_text).toBe("Let me check.");
  });

  test("responses.stream() reports a token-limit cut as incomplete", async () => {
    const r = await openai(fetchReturning(await responsesSse(lengthEvents), SSE))
      .responses.stream({ model: "m", input: "x" })
      .finalResponse();
    expect(r.status).toBe("incomplete");
    expect(r.incomplete_details?.reason).toBe("max_output_tokens");
  });

  test("responses.stream() surfaces a mid-stream failure as a failed response with its error", async () => {
    const r = await openai(fetchReturning(await responsesSse(midStreamFailureEvents), SSE))
      .responses.stream({ model: "m", input: "x" })
      .finalResponse();
    expect(r.status).toBe("failed");
    expect(r.error?.message).toBe("Upstream connection reset");
  });

  test("iterating responses.create({stream: true}) yields every event with its sequence_number", async () => {
    const stream = await openai(fetchReturning(await responsesSse(textEvents), SSE)).responses.create({
      model: "m",
      input: "x",
      stream: true,
    });
    const seen: number[] = [];
    for await (const event of stream) seen.push(event.sequence_number);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

describe("anthropic SDK reads the Messages interface", () => {
  test("messages.create parses the rendered Message", async () => {
    const body = JSON.stringify(renderMessage(chatResult({ content: "Checking.", tool_calls: [weatherCall] }, "tool_calls")));
    const m = await anthropic(fetchReturning(body, JSON_OK)).messages.create({
      model: "acme/chat-small",
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(m.stop_reason).toBe("tool_use");
    expect(m.content[1]).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "Paris" } });
  });

  test("messages.stream().finalMessage() accumulates text, usage and stop_reason", async () => {
    const stream = anthropic(fetchReturning(await messagesSse(textEvents), SSE)).messages.stream({
      model: "m",
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    const texts: string[] = [];
    stream.on("text", (t) => texts.push(t));
    const m = await stream.finalMessage();
    expect(texts).toEqual(["Hello", " world"]);
    expect(m.content).toMatchObject([{ type: "text", text: "Hello world" }]);
    expect(m.stop_reason).toBe("end_turn");
    expect(m.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 5, cache_creation_input_tokens: 3 });
    expect(m.model).toBe("chat-small-2026");
  });

  test("messages.stream() parses streamed tool input JSON", async () => {
    const m = await anthropic(fetchReturning(await messagesSse(toolEvents), SSE))
      .messages.stream({ model: "m", max_tokens: 64, messages: [{ role: "user", content: "x" }] })
      .finalMessage();
    expect(m.stop_reason).toBe("tool_use");
    expect(m.content[1]).toMatchObject({ type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } });
  });

  test("messages.stream() reports a token-limit cut as max_tokens", async () => {
    const m = await anthropic(fetchReturning(await messagesSse(lengthEvents), SSE))
      .messages.stream({ model: "m", max_tokens: 2, messages: [{ role: "user", content: "x" }] })
      .finalMessage();
    expect(m.stop_reason).toBe("max_tokens");
  });

  test("a mid-stream error event makes finalMessage() reject with the SDK's APIError", async () => {
    const stream = anthropic(fetchReturning(await messagesSse(midStreamFailureEvents), SSE)).messages.stream({
      model: "m",
      max_tokens: 64,
      messages: [{ role: "user", content: "x" }],
    });
    const error = await stream.finalMessage().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).message).toContain("Upstream connection reset");
  });

  test("an Anthropic-shaped error response raises the SDK's typed error", async () => {
    const res = anthropicErrorResponse(new ApiError("invalid_parameter", "'max_tokens' is required.", { param: "max_tokens" }), "req_1");
    const fetch = (async () => res) as unknown as typeof globalThis.fetch;
    const error = await anthropic(fetch)
      .messages.create({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "x" }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const e = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect(e.status).toBe(400);
    expect(e.error).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: "'max_tokens' is required." } });
    expect(e.requestID).toBe("req_1");
  });
});
