import { describe, expect, test } from "bun:test";
import { openAIResponsesAdapter as adapter } from "../../../src/providers/openai-responses/adapter";
import type { ChatRequest } from "../../../src/providers/types";
import { target } from "./stream-harness";

const base: ChatRequest = { model: "openai/gpt-5.5-pro", messages: [{ role: "user", content: "Hi" }] };
const bodyOf = (req: ChatRequest, t = target("openai")) => JSON.parse(adapter.buildRequest(req, t).body);
const codesOf = (req: ChatRequest) => adapter.buildRequest(req, target("openai")).warnings.map((w) => w.code);

describe("openai-responses buildRequest: envelope", () => {
  test("posts to {baseUrl}/responses with a Bearer credential", () => {
    const built = adapter.buildRequest(base, target("openai", { baseUrl: "http://h/v1/" }));
    expect(built.url).toBe("http://h/v1/responses");
    expect(built.headers.authorization).toBe("Bearer sk-test-key-123456");
    expect(built.headers.accept).toBe("application/json");
    expect(built.warnings).toEqual([]);
  });

  test("uses the route's provider model id, never stores (so asks for the encrypted reasoning), and asks for SSE on streams", () => {
    const built = adapter.buildRequest({ ...base, stream: true, stream_options: { include_usage: true } }, target("openai"));
    expect(JSON.parse(built.body)).toEqual({
      model: "model-x",
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] }],
      store: false,
      include: ["reasoning.encrypted_content"],
      stream: true,
    });
    expect(built.headers.accept).toBe("text/event-stream");
    expect(built.warnings).toEqual([]);
  });

  test("sends no stream field on non-streaming requests", () => {
    expect(bodyOf(base).stream).toBeUndefined();
  });

  test("merges target extensions one level deep over the translated body", () => {
    const req: ChatRequest = { ...base, reasoning_effort: "high" };
    const body = bodyOf(req, target("openai", { extensions: { reasoning: { summary: "auto" }, truncation: "auto" } }));
    expect(body.reasoning).toEqual({ effort: "high", summary: "auto" });
    expect(body.truncation).toBe("auto");
  });
});

describe("openai-responses buildRequest: messages", () => {
  test("system and developer messages become the joined instructions", () => {
    const req: ChatRequest = {
      ...base,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
        ...base.messages,
      ],
    };
    const body = bodyOf(req);
    expect(body.instructions).toBe("Be brief.\n\nAnswer in French.");
    expect(body.input).toHaveLength(1);
  });

  test("user text and image parts become input_text and input_image", () => {
    const req: ChatRequest = {
      ...base,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "https://img.test/a.png", detail: "low" } },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          ],
        },
      ],
    };
    expect(bodyOf(req).input).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "What is this?" },
          { type: "input_image", image_url: "https://img.test/a.png", detail: "low" },
          { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" },
        ],
      },
    ]);
  });

  test("file parts become input_file; unsupported parts are dropped with a warning", () => {
    const req: ChatRequest = {
      ...base,
      messages: [
        {
          role: "user",
          content: [
            { type: "file", file: { file_data: "data:application/pdf;base64,JVBE", filename: "a.pdf" } },
            { type: "input_audio", input_audio: { data: "x", format: "wav" } },
          ],
        },
      ],
    };
    const built = adapter.buildRequest(req, target("openai"));
    expect(JSON.parse(built.body).input[0].content).toEqual([
      { type: "input_file", file_data: "data:application/pdf;base64,JVBE", filename: "a.pdf" },
    ]);
    expect(built.warnings.map((w) => w.code)).toEqual(["content.input_audio"]);
  });

  test("assistant text becomes output_text and its tool calls function_call items; tool results function_call_output", () => {
    const req: ChatRequest = {
      ...base,
      messages: [
        { role: "user", content: "Weather in Paris and Rome?" },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "18C" },
        {
          role: "tool",
          tool_call_id: "call_2",
          content: [
            { type: "text", text: "21" },
            { type: "text", text: "C" },
          ],
        },
        { role: "assistant", content: "Paris 18C, Rome 21C." },
      ],
    };
    expect(bodyOf(req).input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "Weather in Paris and Rome?" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call", call_id: "call_2", name: "get_weather", arguments: '{"city":"Rome"}' },
      { type: "function_call_output", call_id: "call_1", output: "18C" },
      { type: "function_call_output", call_id: "call_2", output: "21\nC" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Paris 18C, Rome 21C." }] },
    ]);
  });

  test("an assistant turn with only tool calls has no message item; a tool result with an image keeps its parts", () => {
    const req: ChatRequest = {
      ...base,
      messages: [
        { role: "assistant", content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "snap", arguments: "{}" } }] },
        {
          role: "tool",
          tool_call_id: "call_9",
          content: [
            { type: "text", text: "see" },
            { type: "image_url", image_url: { url: "https://img.test/s.png" } },
          ],
        },
      ],
    };
    expect(bodyOf(req).input).toEqual([
      { type: "function_call", call_id: "call_9", name: "snap", arguments: "{}" },
      {
        type: "function_call_output",
        call_id: "call_9",
        output: [
          { type: "input_text", text: "see" },
          { type: "input_image", image_url: "https://img.test/s.png", detail: "auto" },
        ],
      },
    ]);
  });
});

describe("openai-responses buildRequest: tools and options", () => {
  const tools: ChatRequest["tools"] = [
    {
      type: "function",
      function: {
        name: "get_weather",
        description: "Weather now",
        parameters: { type: "object", properties: { city: { type: "string" } } },
      },
    },
    { type: "function", function: { name: "noop", strict: true } },
  ];

  test("function tools are flattened, non-strict unless asked", () => {
    expect(bodyOf({ ...base, tools }).tools).toEqual([
      {
        type: "function",
        name: "get_weather",
        description: "Weather now",
        parameters: { type: "object", properties: { city: { type: "string" } } },
        strict: false,
      },
      { type: "function", name: "noop", parameters: { type: "object", properties: {} }, strict: true },
    ]);
  });

  test("tool_choice strings, named functions and allowed_tools map; parallel_tool_calls travels", () => {
    for (const choice of ["auto", "none", "required"]) expect(bodyOf({ ...base, tools, tool_choice: choice }).tool_choice).toBe(choice);
    expect(bodyOf({ ...base, tools, tool_choice: { type: "function", function: { name: "noop" } } }).tool_choice).toEqual({
      type: "function",
      name: "noop",
    });
    const allowed = {
      type: "allowed_tools",
      allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "get_weather" } }] },
    };
    expect(bodyOf({ ...base, tools, tool_choice: allowed }).tool_choice).toEqual({
      type: "allowed_tools",
      mode: "required",
      tools: [{ type: "function", name: "get_weather" }],
    });
    expect(bodyOf({ ...base, tools, parallel_tool_calls: false }).parallel_tool_calls).toBe(false);
  });

  test("an inexpressible tool_choice is dropped with a warning", () => {
    const built = adapter.buildRequest({ ...base, tools, tool_choice: { type: "custom", custom: { name: "x" } } }, target("openai"));
    expect(JSON.parse(built.body).tool_choice).toBeUndefined();
    expect(built.warnings.map((w) => w.code)).toEqual(["tool_choice"]);
  });

  test("max_completion_tokens (over max_tokens), temperature, top_p and reasoning_effort", () => {
    const body = bodyOf({ ...base, max_tokens: 100, max_completion_tokens: 200, temperature: 0.3, top_p: 0.9, reasoning_effort: "low" });
    expect(body).toMatchObject({ max_output_tokens: 200, temperature: 0.3, top_p: 0.9, reasoning: { effort: "low" } });
    expect(bodyOf({ ...base, max_tokens: 100 }).max_output_tokens).toBe(100);
  });

  test("response_format json_schema and json_object become text.format; verbosity joins them", () => {
    const schema = { type: "object", properties: { a: { type: "number" } }, required: ["a"], additionalProperties: false };
    const req: ChatRequest = {
      ...base,
      response_format: { type: "json_schema", json_schema: { name: "answer", schema, strict: true } },
      verbosity: "low",
    };
    expect(bodyOf(req).text).toEqual({ format: { type: "json_schema", name: "answer", schema, strict: true }, verbosity: "low" });
    expect(bodyOf({ ...base, response_format: { type: "json_object" } }).text).toEqual({ format: { type: "json_object" } });
    expect(bodyOf({ ...base, response_format: { type: "text" } }).text).toBeUndefined();
  });

  test("fields of the same meaning on both APIs pass through", () => {
    const body = bodyOf({ ...base, user: "u-1", metadata: { k: "v" }, service_tier: "flex", prompt_cache_key: "pk" });
    expect(body).toMatchObject({ user: "u-1", metadata: { k: "v" }, service_tier: "flex", prompt_cache_key: "pk" });
  });

  test("unsupported fields are dropped with one warning each; defaults warn nothing", () => {
    const req: ChatRequest = {
      ...base,
      n: 2,
      logit_bias: { "1": 2 },
      seed: 7,
      stop: ["x"],
      presence_penalty: 0.5,
      frequency_penalty: 0.5,
      logprobs: true,
      top_logprobs: 3,
      modalities: ["text"],
    };
    const body = bodyOf(req);
    for (const field of [
      "n",
      "logit_bias",
      "seed",
      "stop",
      "presence_penalty",
      "frequency_penalty",
      "logprobs",
      "top_logprobs",
      "modalities",
    ])
      expect(body[field]).toBeUndefined();
    expect(codesOf(req).sort()).toEqual([
      "frequency_penalty",
      "logit_bias",
      "logprobs",
      "modalities",
      "n",
      "presence_penalty",
      "seed",
      "stop",
      "top_logprobs",
    ]);
    expect(codesOf({ ...base, n: 1, logprobs: false, stop: null as never })).toEqual([]);
  });
});
