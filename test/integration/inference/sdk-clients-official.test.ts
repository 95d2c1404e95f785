// The official openai and @anthropic-ai/sdk clients, over real HTTP against a listening gateway,
// on both sides of each interface: a request in the route's own dialect (native: /v1/responses to a
// Responses provider, /v1/messages to an anthropic route) and one the gateway translates. Each
// answer must reach the client whole, with usage, and without the client logging a complaint.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../../support/gateway";
import { MOCK_TEXT, recordClientComplaints, weatherParameters, type ClientComplaints } from "../../support/sdk-clients";

interface Routed {
  routing_metadata?: { provider: string; model_canonical: string; cost: { microdollars: number } };
}

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
  complaints = recordClientComplaints();
  const common = { apiKey: g.s.adminKey, maxRetries: 0, logger: complaints.logger, logLevel: "warn" as const };
  openai = new OpenAI({ ...common, baseURL: `${g.s.url}/v1` });
  anthropic = new Anthropic({ ...common, baseURL: g.s.url });
});
afterEach(() => complaints.restore());

/** The upstream call the last request made: which provider, in which of its APIs. */
const upstream = () => {
  const r = g.mock.requests.at(-1)!;
  return { provider: r.provider, format: r.format, route: r.route, stream: r.stream };
};

describe("official openai client", () => {
  test("chat.completions.create, JSON and stream, through acme/dual", async () => {
    const r = await openai.chat.completions.create({ model: "acme/dual", messages: [{ role: "user", content: "hi" }] });
    expect(r.choices[0]!.message.content).toBe(MOCK_TEXT);
    expect(r.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect((r as Routed).routing_metadata?.provider).toBe("delta");
    expect(upstream()).toMatchObject({ provider: "delta", route: "chat", stream: false });

    const stream = await openai.chat.completions.create({
      model: "acme/dual",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | undefined | null;
    let routed: Routed["routing_metadata"];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
      routed = (chunk as Routed).routing_metadata ?? routed;
    }
    expect(text).toBe(MOCK_TEXT);
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
    expect(routed?.model_canonical).toBe("acme/dual");
    expect(upstream()).toMatchObject({ provider: "delta", route: "chat", stream: true });
    expect(complaints.lines).toEqual([]);
  });

  // acme/dual's route speaks the Responses API (native); acme/openai-only's speaks only chat (translated).
  for (const [model, route] of [
    ["acme/dual", "responses"],
    ["acme/openai-only", "chat"],
  ] as const) {
    test(`responses.create, JSON and stream, through ${model} (upstream ${route})`, async () => {
      const r = await openai.responses.create({ model, input: "hi" });
      expect(r.status).toBe("completed");
      expect(r.output_text).toBe(MOCK_TEXT);
      expect(r.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
      expect((r as Routed).routing_metadata?.model_canonical).toBe(model);
      expect(upstream()).toMatchObject({ route, stream: false });

      const stream = openai.responses.stream({ model, input: [{ role: "user", content: "hi" }] });
      const deltas: string[] = [];
      let completed: (OpenAI.Responses.Response & Routed) | undefined;
      stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
      stream.on("response.completed", (e) => (completed = e.response));
      const final = await stream.finalResponse();
      expect(deltas.join("")).toBe(MOCK_TEXT);
      expect(final.output_text).toBe(MOCK_TEXT);
      expect(final.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
      expect(completed?.routing_metadata?.model_canonical).toBe(model);
      expect(upstream()).toMatchObject({ route, stream: true });

      const created = await openai.responses.create({ model, input: "hi", stream: true });
      const types: string[] = [];
      for await (const e of created) types.push(e.type);
      expect(types[0]).toBe("response.created");
      expect(types.at(-1)).toBe("response.completed");
      expect(complaints.lines).toEqual([]);
    });
  }

  test("a Responses function call round trips natively through acme/dual", async () => {
    g.mock.setScript({ route: "responses" }, [
      { kind: "reply", toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" } }] },
      { kind: "reply", text: "Cold in Oslo." },
    ]);
    const tools: OpenAI.Responses.Tool[] = [{ type: "function", name: "get_weather", strict: true, parameters: weatherParameters }];
    const first = await openai.responses.stream({ model: "acme/dual", input: "weather in Oslo?", tools }).finalResponse();
    const call = first.output.find((o) => o.type === "function_call")!;
    expect(call).toMatchObject({ name: "get_weather" });
    expect(JSON.parse(call.arguments)).toEqual({ city: "Oslo" });
    const follow = await openai.responses.create({
      model: "acme/dual",
      input: [
        { role: "user", content: "weather in Oslo?" },
        { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: "function_call_output", call_id: call.call_id, output: "-3 C" },
      ],
      tools,
    });
    expect(follow.output_text).toBe("Cold in Oslo.");
    expect(upstream()).toMatchObject({ provider: "delta", route: "responses" });
    expect(JSON.stringify(g.mock.requests.at(-1)!.body)).toContain("-3 C");
    expect(complaints.lines).toEqual([]);
  });
});

describe("official @anthropic-ai/sdk client", () => {
  // acme/anthropic-only is served by beta (anthropic: native); acme/chat's cheapest route is gamma
  // (gemini: translated), which the upstream call confirms.
  for (const [model, provider, format] of [
    ["acme/anthropic-only", "beta", "anthropic"],
    ["acme/chat", "gamma", "gemini"],
  ] as const) {
    test(`messages.create and messages.stream through ${model} (${provider}, ${format} upstream)`, async () => {
      const m = await anthropic.messages.create({ model, max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
      expect(m.content).toEqual([expect.objectContaining({ type: "text", text: MOCK_TEXT })]);
      expect(m.stop_reason).toBe("end_turn");
      expect(m.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
      expect((m as Routed).routing_metadata?.provider).toBe(provider);
      expect(upstream()).toMatchObject({ provider, format, stream: false });

      const stream = anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
      const deltas: string[] = [];
      let routed: Routed["routing_metadata"];
      stream.on("text", (t) => deltas.push(t));
      stream.on("streamEvent", (e) => {
        if (e.type === "message_delta") routed = (e as Routed).routing_metadata;
      });
      const final = await stream.finalMessage();
      expect(deltas.join("")).toBe(MOCK_TEXT);
      expect(final.content).toEqual([expect.objectContaining({ type: "text", text: MOCK_TEXT })]);
      expect(final.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
      expect(routed?.provider).toBe(provider);
      expect(upstream()).toMatchObject({ provider, format, stream: true });

      const raw = await anthropic.messages.create({ model, max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] });
      const types: string[] = [];
      for await (const e of raw) types.push(e.type);
      expect(types[0]).toBe("message_start");
      expect(types.at(-1)).toBe("message_stop");
      expect(complaints.lines).toEqual([]);
    });

    test(`tool use round trips through ${model}`, async () => {
      g.mock.setScript({ route: "chat" }, [
        { kind: "reply", toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }] },
        { kind: "reply", text: "Warm in Rome." },
      ]);
      const tools: Anthropic.Tool[] = [{ name: "get_weather", input_schema: weatherParameters as unknown as Anthropic.Tool.InputSchema }];
      const ask = { role: "user" as const, content: "weather in Rome?" };
      const m = await anthropic.messages.stream({ model, max_tokens: 100, tools, messages: [ask] }).finalMessage();
      expect(m.stop_reason).toBe("tool_use");
      const use = m.content.find((c) => c.type === "tool_use")!;
      expect(use).toMatchObject({ name: "get_weather", input: { city: "Rome" } });
      const follow = await anthropic.messages.create({
        model,
        max_tokens: 100,
        tools,
        messages: [
          ask,
          { role: "assistant", content: [use] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "24 C" }] },
        ],
      });
      expect(follow.content).toEqual([expect.objectContaining({ type: "text", text: "Warm in Rome." })]);
      expect(upstream()).toMatchObject({ provider, format });
      expect(JSON.stringify(g.mock.requests.at(-1)!.body)).toContain("24 C");
      expect(complaints.lines).toEqual([]);
    });
  }
});
