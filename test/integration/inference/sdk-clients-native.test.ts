// A request in its route's own dialect comes back as the provider answered (STYLE 11): recorded
// Anthropic and OpenAI Responses answers reach the real clients with the provider's own IDs,
// model names and fields our translation would not carry (service_tier, reasoning items and
// counts), plus routing_metadata where the gateway adds it.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatOpenAI } from "@langchain/openai";
import { generateText, jsonSchema, streamText, tool } from "ai";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../../support/gateway";
import { recordClientComplaints, type ClientComplaints } from "../../support/sdk-clients";

interface Routed {
  routing_metadata?: { provider: string; model_canonical: string };
}

// What the recorded fixtures say (test/fixtures/anthropic/text.*, test/fixtures/openai-responses/text.*).
const TEXT = "Hello! Grüße 👋 — how can I help?";
const CLAUDE = { id: "msg_01XFDUDYJgAACzvnptvVoYEL", model: "claude-sonnet-4-5-20250929" };
const GPT = { id: "resp_68f9a1c0a1b2c3d4e5f60718293a4b5c", model: "gpt-5.5-pro-2026-04-23" };
const CLAUDE_CALLS = ["toolu_01T1x1fJ34qAmk2tNTrN7Up6", "toolu_01VHjnBqEw3C2mXUzMZEGKrc"];
const GPT_CALLS = ["call_DdmO9pD3xa9XTPNJ32zg2hcA", "call_ABb3oPZFkHtW4ypJ3bLgmFCs"];

let g: TestGateway;
let complaints: ClientComplaints;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());
beforeEach(() => {
  g.mock.reset();
  g.mock.setScript({ provider: "beta", stream: false }, { kind: "fixture", file: "anthropic/text.json" });
  g.mock.setScript({ provider: "beta", stream: true }, { kind: "fixture", file: "anthropic/text.chunks.txt" });
  g.mock.setScript({ provider: "delta", route: "responses", stream: false }, { kind: "fixture", file: "openai-responses/text.json" });
  g.mock.setScript({ provider: "delta", route: "responses", stream: true }, { kind: "fixture", file: "openai-responses/text.chunks.txt" });
  complaints = recordClientComplaints();
  const common = { apiKey: g.s.adminKey, maxRetries: 0, logger: complaints.logger, logLevel: "warn" as const };
  openai = new OpenAI({ ...common, baseURL: `${g.s.url}/v1` });
  anthropic = new Anthropic({ ...common, baseURL: g.s.url });
});
afterEach(() => complaints.restore());

const hi = { model: "acme/anthropic-only", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };

describe("native /v1/messages to an anthropic route", () => {
  test("@anthropic-ai/sdk: the Message is the provider's, with routing_metadata", async () => {
    const m = await anthropic.messages.create(hi);
    expect(m).toMatchObject({ ...CLAUDE, content: [{ type: "text", text: TEXT }], stop_reason: "end_turn" });
    expect(m.usage).toMatchObject({ input_tokens: 25, output_tokens: 15, service_tier: "standard" });
    expect((m as Routed).routing_metadata?.provider).toBe("beta");

    const stream = anthropic.messages.stream(hi);
    let routed: Routed["routing_metadata"];
    stream.on("streamEvent", (e) => {
      if (e.type === "message_delta") routed = (e as Routed).routing_metadata;
    });
    const final = await stream.finalMessage();
    expect(final).toMatchObject({ ...CLAUDE, content: [{ type: "text", text: TEXT }] });
    expect(final.usage).toMatchObject({ input_tokens: 25, output_tokens: 15, service_tier: "standard" });
    expect(routed?.provider).toBe("beta");
    expect(complaints.lines).toEqual([]);
  });

  test("@ai-sdk/anthropic: generateText and streamText see the provider's message", async () => {
    const model = createAnthropic({ baseURL: `${g.s.url}/v1`, apiKey: g.s.adminKey })("acme/anthropic-only");
    const r = await generateText({ model, prompt: "hi", maxOutputTokens: 100, maxRetries: 0 });
    expect(r.text).toBe(TEXT);
    expect(r.response).toMatchObject({ id: CLAUDE.id, modelId: CLAUDE.model });
    expect(r.usage).toMatchObject({ inputTokens: 25, outputTokens: 15 });
    const s = streamText({
      model,
      prompt: "hi",
      maxOutputTokens: 100,
      maxRetries: 0,
      onError: ({ error }) => void complaints.lines.push(String(error)),
    });
    expect(await s.text).toBe(TEXT);
    expect(await s.response).toMatchObject({ id: CLAUDE.id, modelId: CLAUDE.model });
    expect(await s.usage).toMatchObject({ inputTokens: 25, outputTokens: 15 });
    expect(complaints.lines).toEqual([]);
  });
  test("parallel tool calls, streamed, keep the provider's tool_use IDs and cache counts (@anthropic-ai/sdk, @ai-sdk/anthropic)", async () => {
    g.mock.setScript({ provider: "beta", stream: true }, { kind: "fixture", file: "anthropic/tool-use.chunks.txt" });
    const tools: Anthropic.Tool[] = [
      { name: "get_weather", input_schema: { type: "object", properties: { location: { type: "string" } } } },
    ];
    const m = await anthropic.messages.stream({ ...hi, tools }).finalMessage();
    expect(m.stop_reason).toBe("tool_use");
    expect(m.content.filter((c) => c.type === "tool_use")).toEqual([
      expect.objectContaining({ id: CLAUDE_CALLS[0], input: { location: "Paris, France" } }),
      expect.objectContaining({ id: CLAUDE_CALLS[1], input: { location: "Bogotá, Colombia" } }),
    ]);
    expect(m.usage).toMatchObject({ cache_read_input_tokens: 2048, cache_creation_input_tokens: 512, output_tokens: 89 });

    const model = createAnthropic({ baseURL: `${g.s.url}/v1`, apiKey: g.s.adminKey })("acme/anthropic-only");
    const s = streamText({
      model,
      prompt: "weather?",
      maxOutputTokens: 100,
      maxRetries: 0,
      tools: {
        get_weather: tool({
          inputSchema: jsonSchema<{ location: string }>({ type: "object", properties: { location: { type: "string" } } }),
        }),
      },
      onError: ({ error }) => void complaints.lines.push(String(error)),
    });
    expect((await s.toolCalls).map((c) => c.toolCallId)).toEqual(CLAUDE_CALLS);
    expect(await s.usage).toMatchObject({ inputTokenDetails: { cacheReadTokens: 2048, cacheWriteTokens: 512 } });
    expect(complaints.lines).toEqual([]);
  });
});

describe("native /v1/responses to a route that speaks the Responses API", () => {
  test("openai: the Response is the provider's, reasoning item and counts included, with routing_metadata", async () => {
    const r = await openai.responses.create({ model: "acme/dual", input: "hi" });
    expect(r).toMatchObject({ ...GPT, status: "completed", output_text: TEXT });
    expect(r.output.map((o) => o.type)).toEqual(["reasoning", "message"]);
    expect(r.usage).toMatchObject({ input_tokens: 19, output_tokens: 210, output_tokens_details: { reasoning_tokens: 192 } });
    expect((r as Routed).routing_metadata?.provider).toBe("delta");

    const stream = openai.responses.stream({ model: "acme/dual", input: "hi" });
    let completed: (OpenAI.Responses.Response & Routed) | undefined;
    stream.on("response.completed", (e) => (completed = e.response));
    const final = await stream.finalResponse();
    expect(final).toMatchObject({ ...GPT, output_text: TEXT });
    expect(final.usage?.output_tokens_details.reasoning_tokens).toBe(192);
    expect(completed?.routing_metadata?.provider).toBe("delta");
    expect(complaints.lines).toEqual([]);
  });

  test("@ai-sdk/openai .responses(): generateText and streamText see the provider's response", async () => {
    const model = createOpenAI({ baseURL: `${g.s.url}/v1`, apiKey: g.s.adminKey }).responses("acme/dual");
    const r = await generateText({ model, prompt: "hi", maxRetries: 0 });
    expect(r.text).toBe(TEXT);
    expect(r.response).toMatchObject({ id: GPT.id, modelId: GPT.model });
    expect(r.usage).toMatchObject({ inputTokens: 19, outputTokens: 210, outputTokenDetails: { reasoningTokens: 192 } });
    const s = streamText({ model, prompt: "hi", maxRetries: 0, onError: ({ error }) => void complaints.lines.push(String(error)) });
    expect(await s.text).toBe(TEXT);
    expect(await s.response).toMatchObject({ id: GPT.id, modelId: GPT.model });
    expect(await s.usage).toMatchObject({ inputTokens: 19, outputTokens: 210 });
    expect(complaints.lines).toEqual([]);
  });

  test("parallel function calls, streamed, keep the provider's call IDs (openai, @ai-sdk/openai)", async () => {
    g.mock.setScript(
      { provider: "delta", route: "responses", stream: true },
      { kind: "fixture", file: "openai-responses/tool-calls.chunks.txt" },
    );
    const fn = {
      type: "function" as const,
      name: "get_weather",
      strict: false,
      parameters: { type: "object", properties: { location: { type: "string" } } },
    };
    const final = await openai.responses.stream({ model: "acme/dual", input: "weather?", tools: [fn] }).finalResponse();
    const calls = final.output.filter((o) => o.type === "function_call");
    expect(calls.map((c) => c.call_id)).toEqual(GPT_CALLS);
    expect(JSON.parse(calls[1]!.arguments)).toEqual({ location: "Bogotá, Colombia" });
    expect(final.usage).toMatchObject({ input_tokens_details: { cached_tokens: 1920 }, output_tokens_details: { reasoning_tokens: 768 } });

    const model = createOpenAI({ baseURL: `${g.s.url}/v1`, apiKey: g.s.adminKey }).responses("acme/dual");
    const s = streamText({
      model,
      prompt: "weather?",
      maxRetries: 0,
      tools: {
        get_weather: tool({
          inputSchema: jsonSchema<{ location: string }>({ type: "object", properties: { location: { type: "string" } } }),
        }),
      },
      onError: ({ error }) => void complaints.lines.push(String(error)),
    });
    expect((await s.toolCalls).map((c) => c.toolCallId)).toEqual(GPT_CALLS);
    expect(await s.usage).toMatchObject({ inputTokenDetails: { cacheReadTokens: 1920 }, outputTokenDetails: { reasoningTokens: 768 } });
    expect(complaints.lines).toEqual([]);
  });

  test("LangChain ChatOpenAI with useResponsesApi sees the provider's response", async () => {
    const chat = new ChatOpenAI({
      model: "acme/dual",
      apiKey: g.s.adminKey,
      configuration: { baseURL: `${g.s.url}/v1` },
      maxRetries: 0,
      useResponsesApi: true,
    });
    const m = await chat.invoke("hi");
    expect(m.text).toBe(TEXT);
    expect(m.id).toBe(GPT.id);
    expect(m.usage_metadata).toMatchObject({ input_tokens: 19, output_tokens: 210, output_token_details: { reasoning: 192 } });
    expect(complaints.lines).toEqual([]);
  });
});
