import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { startGateway, type TestGateway } from "../../support/gateway";

let g: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  g = await startGateway();
  openai = new OpenAI({ baseURL: `${g.s.url}/v1`, apiKey: g.s.adminKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: g.s.url, apiKey: g.s.adminKey, maxRetries: 0 });
});
afterAll(() => g.stop());
beforeEach(() => g.mock.reset());

const MODELS = ["acme/openai-only", "acme/anthropic-only", "acme/gemini-only"];
const weatherTool = { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

describe("/v1/responses with the official openai SDK", () => {
  for (const model of MODELS) {
    test(`create() and stream() through ${model}`, async () => {
      const r = await openai.responses.create({ model, input: "hi", instructions: "be brief" });
      expect(r.status).toBe("completed");
      expect(r.output_text).toBe("Hello from the mock upstream.");
      expect(r.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
      expect((r as unknown as { routing_metadata: { model_canonical: string } }).routing_metadata.model_canonical).toBe(model);

      const stream = openai.responses.stream({ model, input: [{ role: "user", content: "hi" }] });
      const types: string[] = [];
      stream.on("event", (e) => types.push(e.type));
      const final = await stream.finalResponse();
      expect(final.output_text).toBe("Hello from the mock upstream.");
      expect(types[0]).toBe("response.created");
      expect(types.filter((t) => t === "response.completed")).toHaveLength(1);
      expect(types).toContain("response.output_text.delta");
    });

    test(`function calls round trip through ${model}`, async () => {
      g.mock.setScript({ route: "chat" }, { kind: "reply", toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" } }] });
      const r = await openai.responses.create({
        model,
        input: "weather in Oslo?",
        tools: [{ type: "function", strict: false, ...weatherTool }],
      });
      const call = r.output.find((o) => o.type === "function_call") as { call_id: string; name: string; arguments: string };
      expect(call.name).toBe("get_weather");
      expect(JSON.parse(call.arguments)).toEqual({ city: "Oslo" });
      g.mock.reset();
      const follow = await openai.responses.create({
        model,
        input: [
          { role: "user", content: "weather in Oslo?" },
          { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: "function_call_output", call_id: call.call_id, output: "cold" },
        ],
        tools: [{ type: "function", strict: false, ...weatherTool }],
      });
      expect(follow.status).toBe("completed");
      expect(JSON.stringify(g.mock.requests.at(-1)!.body)).toContain("cold");
    });
  }

  test("a model offered only through the Responses API is sent to the provider's /responses, JSON and stream", async () => {
    const r = await openai.responses.create({ model: "acme/responses-only", input: "hi" });
    expect(r.status).toBe("completed");
    expect(r.output_text.length).toBeGreaterThan(0);
    const sent = g.mock.requests.at(-1)!;
    expect(sent.route).toBe("responses");
    expect(sent.path).toBe("/v1/responses");
    const final = await openai.responses.stream({ model: "acme/responses-only", input: "hi" }).finalResponse();
    expect(final.status).toBe("completed");
    expect(g.mock.requests.at(-1)!.stream).toBe(true);
    // Listed for every client: chat and Messages clients reach it over the Responses API too.
    const chatList = (await (await g.s.fetch("/v1/models")).json()) as { data: { id: string }[] };
    const respList = (await (await g.s.fetch("/v1/models?endpoint=responses")).json()) as { data: { id: string }[] };
    expect(chatList.data.map((m) => m.id)).toContain("acme/responses-only");
    expect(respList).toEqual(chatList);
  });

  test("a provider that supports the Responses API natively gets /v1/responses calls on its /responses; chat calls stay on chat", async () => {
    const r = await openai.responses.create({ model: "acme/dual", input: "hi" });
    expect(r.status).toBe("completed");
    expect(g.mock.requests.at(-1)!).toMatchObject({ provider: "delta", route: "responses" });
    await openai.chat.completions.create({ model: "acme/dual", messages: [{ role: "user", content: "hi" }] });
    expect(g.mock.requests.at(-1)!).toMatchObject({ provider: "delta", route: "chat" });
  });

  test("a cut by the token limit is response.incomplete with the reason", async () => {
    g.mock.setScript({ route: "chat" }, { kind: "reply", text: "cut", finish: "length" });
    const r = await openai.responses.create({ model: "acme/anthropic-only", input: "long", max_output_tokens: 3 });
    expect(r.status).toBe("incomplete");
    expect(r.incomplete_details?.reason).toBe("max_output_tokens");
    const stream = await fetch(`${g.s.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${g.s.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/anthropic-only", input: "x", stream: true }),
    });
    expect(await stream.text()).toContain("event: response.incomplete");
  });

  test("an upstream failure mid-stream still ends with exactly one response.failed", async () => {
    g.mock.setScript({ route: "chat" }, { kind: "reply", text: "a b c d e f", hangAfterChunks: 2 });
    const r = await fetch(`${g.s.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${g.s.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/openai-only", input: "x", stream: true }),
    });
    const text = await r.text();
    expect(text.match(/event: response\.(completed|failed|incomplete)/g)).toEqual(["event: response.failed"]);
    expect(text).not.toContain("[DONE]");
  });

  test("bad input is a 400 naming the field", async () => {
    const post = async (body: unknown) => {
      const r = await g.s.fetch("/v1/responses", { method: "POST", body: JSON.stringify(body) });
      return { status: r.status, error: ((await r.json()) as { error: { code: string; param: string } }).error };
    };
    const wrong = await post({ model: "acme/chat", input: 42 });
    expect(wrong.status).toBe(400);
    expect(wrong.error).toMatchObject({ code: "invalid_parameter", param: "input" });
    const noName = await post({ model: "acme/chat", input: "x", tools: [{ type: "function", parameters: {} }] });
    expect(noName.status).toBe(400);
    expect(noName.error.param).toBe("tools[0].name");
    const meta = await post({ model: "acme/chat", input: "x", gateway: { metadata: { tags: ["x".repeat(51)] } } });
    expect(meta.error.param).toBe("gateway.metadata.tags[0]");
  });
});

describe("/v1/messages with the official @anthropic-ai/sdk", () => {
  for (const model of MODELS) {
    test(`create() and stream() through ${model}`, async () => {
      const m = await anthropic.messages.create({
        model,
        max_tokens: 100,
        system: "be brief",
        messages: [{ role: "user", content: "hi" }],
      });
      expect(m.type).toBe("message");
      expect(m.content[0]).toMatchObject({ type: "text", text: "Hello from the mock upstream." });
      expect(m.stop_reason).toBe("end_turn");
      const final = await anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: "user", content: "hi" }] }).finalMessage();
      expect(final.content[0]).toMatchObject({ type: "text", text: "Hello from the mock upstream." });
      expect(final.usage.output_tokens).toBe(5);
    });

    test(`tool use round trips through ${model}`, async () => {
      g.mock.setScript({ route: "chat" }, { kind: "reply", toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }] });
      const tools = [{ name: "get_weather", input_schema: weatherTool.parameters as Anthropic.Tool.InputSchema }];
      const m = await anthropic.messages
        .stream({ model, max_tokens: 100, tools, messages: [{ role: "user", content: "weather?" }] })
        .finalMessage();
      const use = m.content.find((c) => c.type === "tool_use") as Anthropic.ToolUseBlock;
      expect(m.stop_reason).toBe("tool_use");
      expect(use.input).toEqual({ city: "Rome" });
      g.mock.reset();
      const follow = await anthropic.messages.create({
        model,
        max_tokens: 100,
        tools,
        messages: [
          { role: "user", content: "weather?" },
          { role: "assistant", content: [use] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "warm" }] },
        ],
      });
      expect(follow.type).toBe("message");
      expect(JSON.stringify(g.mock.requests.at(-1)!.body)).toContain("warm");
    });
  }

  test("x-api-key authenticates; errors use Anthropic's shape and the SDK raises its typed errors", async () => {
    const bad = new Anthropic({ baseURL: g.s.url, apiKey: "ak_" + "x".repeat(40), maxRetries: 0 });
    const err = await bad.messages.create({ model: "acme/chat", max_tokens: 5, messages: [{ role: "user", content: "x" }] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    const r = await fetch(`${g.s.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": g.s.adminKey, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      // A model with no Anthropic route: the translation's own validation answers (an Anthropic route would judge it itself).
      body: JSON.stringify({ model: "acme/openai-only", messages: [{ role: "user", content: "x" }] }),
    });
    expect(r.status).toBe(400);
    expect(r.headers.get("x-request-id")).toBeTruthy();
    const body = (await r.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("max_tokens");
    const malformed = await fetch(`${g.s.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": g.s.adminKey, "content-type": "application/json" },
      body: "{oops",
    });
    expect(((await malformed.json()) as { type: string }).type).toBe("error");
    const notFound = await anthropic.messages
      .create({ model: "nope/none", max_tokens: 5, messages: [{ role: "user", content: "x" }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(notFound).toBeInstanceOf(Anthropic.NotFoundError);
  });

  test("max_tokens cut and mid-stream failure end the stream properly", async () => {
    g.mock.setScript({ route: "chat" }, { kind: "reply", text: "cut", finish: "length" });
    const m = await anthropic.messages.create({ model: "acme/gemini-only", max_tokens: 2, messages: [{ role: "user", content: "x" }] });
    expect(m.stop_reason).toBe("max_tokens");
    g.mock.setScript({ route: "chat" }, { kind: "reply", text: "a b c d e f", hangAfterChunks: 2 });
    const r = await fetch(`${g.s.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": g.s.adminKey, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/openai-only", max_tokens: 50, stream: true, messages: [{ role: "user", content: "x" }] }),
    });
    const text = await r.text();
    expect(text).toContain("event: message_start");
    expect(text).toContain("event: error");
  });
});
