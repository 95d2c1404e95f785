import { describe, expect, test } from "bun:test";
import { anthropicAdapter as adapter } from "../../../src/providers/anthropic/adapter";
import type { ChatMessage, ChatRequest } from "../../../src/providers/types";
import { target } from "./stream-harness";

function build(req: Partial<ChatRequest>, over = {}) {
  const built = adapter.buildRequest({ model: "m", messages: [{ role: "user", content: "Hi" }], ...req }, target("anthropic", over));
  return { ...built, json: JSON.parse(built.body) };
}

describe("anthropic buildRequest", () => {
  test("posts to {root}/v1/messages with x-api-key and anthropic-version", () => {
    const built = build({});
    expect(built.url).toBe("https://api.example.test/v1/messages");
    expect(built.headers["x-api-key"]).toBe("sk-test-key-123456");
    expect(built.headers["anthropic-version"]).toBe("2023-06-01");
    expect(built.headers.authorization).toBeUndefined();
  });

  test("hoists system and developer messages into system", () => {
    const { json } = build({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: [{ type: "text", text: "Use French." }] },
        { role: "user", content: "Hi" },
      ],
    });
    expect(json.system).toBe("Be brief.\n\nUse French.");
    expect(json.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
  });

  test("merges consecutive same-role messages so roles alternate", () => {
    const { json } = build({
      messages: [
        { role: "user", content: "a" },
        { role: "user", content: "b" },
        { role: "assistant", content: "c" },
        { role: "assistant", content: "d" },
      ],
    });
    expect(json.messages.map((m: { role: string; content: unknown[] }) => [m.role, m.content.length])).toEqual([
      ["user", 2],
      ["assistant", 2],
    ]);
  });

  test("turns tool calls into tool_use blocks and tool results into tool_result blocks in one user turn", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "Weather?" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } },
          { id: "toolu_2", type: "function", function: { name: "get_weather", arguments: '{"location":"Oslo"}' } },
        ],
      },
      { role: "tool", tool_call_id: "toolu_1", content: "18C" },
      { role: "tool", tool_call_id: "toolu_2", content: "4C" },
      { role: "user", content: "And tomorrow?" },
    ];
    const { json } = build({ messages });
    expect(json.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { location: "Paris" } },
        { type: "tool_use", id: "toolu_2", name: "get_weather", input: { location: "Oslo" } },
      ],
    });
    expect(json.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: "18C" },
        { type: "tool_result", tool_use_id: "toolu_2", content: "4C" },
        { type: "text", text: "And tomorrow?" },
      ],
    });
  });

  test("maps data: image URLs to base64 sources and http URLs to url sources", () => {
    const { json } = build({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
            { type: "image_url", image_url: { url: "https://example.test/cat.jpg" } },
          ],
        },
      ],
    });
    expect(json.messages[0].content.slice(1)).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "image", source: { type: "url", url: "https://example.test/cat.jpg" } },
    ]);
  });

  test("defaults max_tokens to the route's maxOutputTokens and prefers the request's own", () => {
    expect(build({}).json.max_tokens).toBe(4096);
    expect(build({ max_tokens: 100 }).json.max_tokens).toBe(100);
    expect(build({ max_completion_tokens: 50, max_tokens: 100 }).json.max_tokens).toBe(50);
  });

  test("maps stop to stop_sequences and user to metadata.user_id", () => {
    expect(build({ stop: "END", user: "u-1" }).json).toMatchObject({ stop_sequences: ["END"], metadata: { user_id: "u-1" } });
    expect(build({ stop: ["a", "b"] }).json.stop_sequences).toEqual(["a", "b"]);
  });

  test("maps tools to input_schema and tool_choice required/function/none", () => {
    const tools: ChatRequest["tools"] = [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather",
          parameters: { type: "object", properties: { location: { type: "string" } } },
        },
      },
    ];
    expect(build({ tools }).json.tools).toEqual([
      { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { location: { type: "string" } } } },
    ]);
    expect(build({ tools, tool_choice: "required" }).json.tool_choice).toEqual({ type: "any" });
    expect(build({ tools, tool_choice: "none" }).json.tool_choice).toEqual({ type: "none" });
    expect(build({ tools, tool_choice: { type: "function", function: { name: "get_weather" } } }).json.tool_choice).toEqual({
      type: "tool",
      name: "get_weather",
    });
    expect(build({ tools, parallel_tool_calls: false }).json.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
  });

  test("turns response_format json_schema into a system hint carrying the schema, without a warning", () => {
    const built = build({
      response_format: {
        type: "json_schema",
        json_schema: { name: "x", schema: { type: "object", properties: { a: { type: "number" } } } },
      },
    });
    expect(built.json.system).toContain('{"type":"object","properties":{"a":{"type":"number"}}}');
    expect(built.warnings).toEqual([]);
  });

  test("drops unsupported parameters with one unsupported_parameter warning each", () => {
    const built = build({
      logit_bias: { "1": 2 },
      n: 2,
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: 0.1,
      logprobs: true,
      some_vendor_field: 1,
    });
    expect(built.warnings.map((w) => w.code).sort()).toEqual([
      "frequency_penalty",
      "logit_bias",
      "logprobs",
      "n",
      "presence_penalty",
      "seed",
      "some_vendor_field",
    ]);
    expect(built.warnings.every((w) => w.type === "unsupported_parameter")).toBe(true);
    for (const field of ["logit_bias", "n", "seed", "presence_penalty", "frequency_penalty", "logprobs", "some_vendor_field"])
      expect(built.json[field]).toBeUndefined();
  });

  test("does not warn about defaults (n: 1, logprobs: false, null fields)", () => {
    expect(build({ n: 1, logprobs: false, seed: null as never }).warnings).toEqual([]);
  });

  test("clamps temperature above 1 with a warning", () => {
    const built = build({ temperature: 1.5 });
    expect(built.json.temperature).toBe(1);
    expect(built.warnings.map((w) => w.code)).toEqual(["temperature"]);
  });

  test("merges extensions into the body", () => {
    expect(build({}, { extensions: { top_k: 5 } }).json.top_k).toBe(5);
  });
});

describe("anthropic buildRequest: reasoning_effort as extended thinking", () => {
  const big = { maxOutputTokens: 64_000 };

  test("each effort is a thinking budget (Google's budgets), added on top of the answer's max_tokens", () => {
    const low = build({ reasoning_effort: "low", max_tokens: 100 }, big);
    expect(low.json.thinking).toEqual({ type: "enabled", budget_tokens: 1_024 });
    expect(low.json.max_tokens).toBe(1_124);
    expect(low.warnings).toEqual([]);
    expect(build({ reasoning_effort: "medium", max_tokens: 500 }, big).json).toMatchObject({
      max_tokens: 8_692,
      thinking: { budget_tokens: 8_192 },
    });
    expect(build({ reasoning_effort: "high", max_completion_tokens: 1_000 }, big).json).toMatchObject({
      max_tokens: 25_576,
      thinking: { budget_tokens: 24_576 },
    });
  });

  test("the route's output limit caps the total, the answer keeping its room", () => {
    const { json } = build({ reasoning_effort: "medium", max_tokens: 500 }); // route limit 4,096
    expect(json.max_tokens).toBe(4_096);
    expect(json.thinking.budget_tokens).toBe(3_596);
    // No max_tokens: the route's limit, half of it for the answer.
    expect(build({ reasoning_effort: "high" }).json).toMatchObject({ max_tokens: 4_096, thinking: { budget_tokens: 2_048 } });
  });

  test("none and minimal think not at all; an unknown effort or no room is dropped with a warning", () => {
    expect(build({ reasoning_effort: "none" }).json.thinking).toBeUndefined();
    expect(build({ reasoning_effort: "minimal" }).json.thinking).toBeUndefined();
    const odd = build({ reasoning_effort: "extreme" });
    expect(odd.json.thinking).toBeUndefined();
    expect(odd.warnings.map((w) => w.code)).toEqual(["reasoning_effort"]);
    const tight = build({ reasoning_effort: "low" }, { maxOutputTokens: 1_000 });
    expect(tight.json.thinking).toBeUndefined();
    expect(tight.warnings.map((w) => w.code)).toEqual(["reasoning_effort"]);
  });

  test("thinking rules out a temperature other than 1, a top_p under 0.95 and a forced tool", () => {
    const sampled = build({ reasoning_effort: "low", temperature: 0.2, top_p: 0.5 }, big);
    expect(sampled.json.thinking).toBeDefined();
    expect(sampled.json.temperature).toBeUndefined();
    expect(sampled.json.top_p).toBeUndefined();
    expect(sampled.warnings.map((w) => w.code).sort()).toEqual(["temperature", "top_p"]);
    expect(build({ reasoning_effort: "low", temperature: 1, top_p: 0.97 }, big).json).toMatchObject({ temperature: 1, top_p: 0.97 });
    const tools = [{ type: "function" as const, function: { name: "f", parameters: { type: "object" } } }];
    const forced = build({ reasoning_effort: "low", tools, tool_choice: "required" }, big);
    expect(forced.json.thinking).toBeUndefined();
    expect(forced.json.tool_choice).toEqual({ type: "any" });
    expect(forced.warnings.map((w) => w.code)).toEqual(["reasoning_effort"]);
  });
});

describe("anthropic buildRequest: adaptive thinking on Claude 4.6 and later", () => {
  test("the model generation decides: 4.6+ and Mythos think adaptively, older models take a budget", async () => {
    const { thinksAdaptively } = await import("../../../src/providers/anthropic/thinking");
    for (const id of ["claude-opus-4-7", "claude-opus-4-6", "claude-sonnet-4-6", "claude-mythos-preview", "claude-sonnet-5"])
      expect(thinksAdaptively(id)).toBe(true);
    for (const id of [
      "claude-sonnet-4-5-20250929",
      "claude-opus-4-1",
      "claude-haiku-4-5",
      "claude-3-7-sonnet-latest",
      "claude-sonnet-4-20250514",
      "claude-opus-4-20250514",
    ])
      expect(thinksAdaptively(id)).toBe(false);
  });

  test("an adaptive model gets thinking adaptive with output_config.effort (xhigh is max on Opus only)", () => {
    const big = (id: string) => ({ maxOutputTokens: 64_000, providerModelId: id });
    const opus = build({ reasoning_effort: "medium", max_tokens: 500 }, big("claude-opus-4-7"));
    expect(opus.json.thinking).toEqual({ type: "adaptive" });
    expect(opus.json.output_config).toEqual({ effort: "medium" });
    expect(opus.json.model).toBe("claude-opus-4-7");
    expect(build({ reasoning_effort: "xhigh" }, big("claude-opus-4-7")).json.output_config).toEqual({ effort: "max" });
    expect(build({ reasoning_effort: "xhigh" }, big("claude-sonnet-4-6")).json.output_config).toEqual({ effort: "high" });
    const older = build({ reasoning_effort: "medium", max_tokens: 500 }, big("claude-sonnet-4-5-20250929"));
    expect(older.json.thinking).toEqual({ type: "enabled", budget_tokens: 8_192 });
    expect(older.json.output_config).toBeUndefined();
  });
});
