import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../../support/gateway";

let g: TestGateway;
let client: OpenAI;
beforeAll(async () => {
  g = await startGateway();
  client = new OpenAI({ baseURL: `${g.s.url}/v1`, apiKey: g.s.adminKey, maxRetries: 0 });
});
afterAll(() => g.stop());

describe("the official openai SDK against the gateway", () => {
  test("non-stream completion has the OpenAI shape plus routing_metadata", async () => {
    const r = await client.chat.completions.create({ model: "acme/openai-only", messages: [{ role: "user", content: "hi" }] });
    expect(r.object).toBe("chat.completion");
    expect(r.choices[0]!.message.content).toBe("Hello from the mock upstream.");
    expect(r.choices[0]!.message.refusal).toBeNull();
    expect(r.choices[0]!.logprobs).toBeNull();
    expect(r.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    const meta = (r as unknown as { routing_metadata: Record<string, unknown> }).routing_metadata;
    expect(meta).toMatchObject({
      provider: "alpha",
      provider_model_id: "alpha-solo",
      model_canonical: "acme/openai-only",
      routing_strategy: "cost-focus",
    });
    // 10 input × $1/1M + 5 output × $2/1M = 20 µ$
    expect(meta.cost).toEqual({ usd: 0.00002, microdollars: 20 });
  });

  for (const model of ["acme/openai-only", "acme/anthropic-only", "acme/gemini-only"]) {
    test(`stream through ${model} arrives in the order role, deltas, finish, usage, routing_metadata, [DONE]`, async () => {
      const stream = await client.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }], stream: true });
      const chunks = [];
      for await (const c of stream) chunks.push(c);
      expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
      const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
      expect(text).toBe("Hello from the mock upstream.");
      const finishAt = chunks.findIndex((c) => c.choices[0]?.finish_reason);
      expect(chunks[finishAt]!.choices[0]!.finish_reason).toBe("stop");
      const usage = chunks[finishAt + 1]!;
      expect(usage.choices).toEqual([]);
      expect(usage.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
      const routing = chunks[finishAt + 2] as unknown as { choices: unknown[]; routing_metadata: { model_canonical: string } };
      expect(routing.choices).toEqual([]);
      expect(routing.routing_metadata.model_canonical).toBe(model);
      expect(chunks.length).toBe(finishAt + 3);
    });

    test(`tool calls round trip through ${model}`, async () => {
      g.mock.setScript(
        { model: model.replace("acme/", "").replace("-only", "") === "openai" ? "alpha-solo" : undefined },
        { kind: "reply", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
      );
      const tools = [
        {
          type: "function" as const,
          function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
        },
      ];
      const r = await client.chat.completions.create({ model, messages: [{ role: "user", content: "weather?" }], tools });
      const call = r.choices[0]!.message.tool_calls![0]!;
      expect(r.choices[0]!.finish_reason).toBe("tool_calls");
      expect(call.type).toBe("function");
      expect((call as { function: { name: string; arguments: string } }).function.name).toBe("get_weather");
      expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({ city: "Paris" });
      // The follow-up with the tool result reaches the provider in its own format.
      const follow = await client.chat.completions.create({
        model,
        messages: [
          { role: "user", content: "weather?" },
          { role: "assistant", content: null, tool_calls: [call] },
          { role: "tool", tool_call_id: call.id, content: "sunny" },
        ],
        tools,
      });
      expect(follow.choices[0]!.message).toBeDefined();
      const last = g.mock.requests.at(-1)!;
      expect(JSON.stringify(last.body)).toContain("sunny");
      g.mock.reset();
    });
  }

  test("streamed tool calls arrive as deltas the SDK can assemble", async () => {
    g.mock.setScript({ route: "chat" }, { kind: "reply", toolCalls: [{ name: "lookup", arguments: { q: "x" } }] });
    const stream = client.chat.completions.stream({
      model: "acme/anthropic-only",
      messages: [{ role: "user", content: "go" }],
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0] as { function: { name: string; arguments: string } };
    expect(call.function.name).toBe("lookup");
    expect(JSON.parse(call.function.arguments)).toEqual({ q: "x" });
    g.mock.reset();
  });

  test("JSON mode and images are passed to the provider in its own format", async () => {
    await client.chat.completions.create({
      model: "acme/gemini-only",
      response_format: { type: "json_object" },
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "describe" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ],
    });
    const sent = g.mock.requests.at(-1)!.body as {
      generationConfig?: { responseMimeType?: string };
      contents: { parts: Record<string, unknown>[] }[];
    };
    expect(sent.generationConfig?.responseMimeType).toBe("application/json");
    expect(sent.contents[0]!.parts.some((p) => "inlineData" in p)).toBe(true);
  });

  test("models.list() and models.retrieve() work, with aliases and slashes", async () => {
    const list = await client.models.list();
    const ids = list.data.map((m) => m.id);
    expect(ids).toContain("acme/chat");
    expect(ids).not.toContain("acme/unroutable");
    const m = await client.models.retrieve("acme/chat");
    expect(m.id).toBe("acme/chat");
    const alias = await client.models.retrieve("chat");
    expect(alias.id).toBe("acme/chat");
    const status = await client.models.retrieve("nope/none").then(
      () => 200,
      (e: { status?: number }) => e.status,
    );
    expect(status).toBe(404);
  });
});
