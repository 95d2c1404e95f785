import { describe, expect, test } from "bun:test";
import { parseResponsesRequest, type ResponsesRequest } from "../../../src/inference/responses/schema";
import { responsesToChat } from "../../../src/inference/responses/to-chat";
import { validationApiError } from "../../../src/inference/responses/validation-error";

function translate(body: Record<string, unknown>) {
  const parsed = parseResponsesRequest({ model: "acme/chat-small", ...body });
  if (!parsed.ok) throw new Error(`unexpectedly invalid: ${parsed.error.message}`);
  return responsesToChat(parsed.body);
}

function rejection(body: unknown) {
  const parsed = parseResponsesRequest(body);
  if (parsed.ok) throw new Error("unexpectedly valid");
  return parsed.error;
}

describe("responses request validation", () => {
  test("input of a wrong type is rejected naming input", () => {
    const error = rejection({ model: "m", input: 42 });
    expect(error.param).toBe("input");
    expect(error.message).toBe("'input' must be a string or an array.");
  });

  test("a function tool without a name is rejected naming tools[i].name", () => {
    const error = rejection({
      model: "m",
      input: "hi",
      tools: [
        { type: "function", name: "ok" },
        { type: "function", parameters: {} },
      ],
    });
    expect(error).toEqual({ param: "tools[1].name", message: "'tools[1].name' is required." });
  });

  test("a message item with an unknown role names the role field", () => {
    expect(rejection({ model: "m", input: [{ role: "robot", content: "x" }] }).param).toBe("input[0].role");
  });

  test("a function_call item without call_id names it", () => {
    expect(rejection({ model: "m", input: [{ type: "function_call", name: "f", arguments: "{}" }] }).param).toBe("input[0].call_id");
  });

  test("an item of an unknown type names its type and the allowed ones", () => {
    const error = rejection({ model: "m", input: [{ type: "web_search_call", id: "x" }] });
    expect(error).toEqual({
      param: "input[0].type",
      message: `'input[0].type' must be one of "message", "function_call", "function_call_output", "reasoning", "custom_tool_call", "custom_tool_call_output", "item_reference"; got "web_search_call".`,
    });
  });

  test("an item_reference is refused naming the item: only stored state could resolve it", () => {
    const error = rejection({
      model: "m",
      input: [
        { role: "user", content: "x" },
        { type: "item_reference", id: "msg_1" },
      ],
    });
    expect(error).toEqual({
      param: "input[1]",
      message: "'input[1]' is an item_reference, which this gateway cannot resolve; send the item itself.",
    });
  });

  test("a number out of range says so rather than listing the union's types", () => {
    expect(rejection({ model: "m", input: "x", temperature: 5 })).toEqual({
      param: "temperature",
      message: "'temperature' is invalid: expected number to be less or equal to 2.",
    });
  });

  test("a content part that is not an object says it must be an object", () => {
    expect(rejection({ model: "m", input: [{ role: "user", content: [5] }] })).toEqual({
      param: "input[0].content[0]",
      message: "'input[0].content[0]' must be an object.",
    });
  });

  test("previous_response_id is refused because no state is kept", () => {
    const error = rejection({ model: "m", input: "hi", previous_response_id: "resp_1" });
    expect(error.param).toBe("previous_response_id");
  });

  test("unknown top-level fields and hosted tools are accepted", () => {
    const parsed = parseResponsesRequest({ model: "m", input: "hi", truncation: "auto", tools: [{ type: "web_search" }] });
    expect(parsed.ok).toBe(true);
  });

  test("validation errors become invalid_parameter with the param", () => {
    const err = validationApiError({ param: "input", message: "'input' must be a string or an array." });
    expect(err.status).toBe(400);
    expect(err.body().error).toMatchObject({ code: "invalid_parameter", param: "input", type: "invalid_request_error" });
  });
});

describe("responses request → chat request", () => {
  test("string input becomes one user message; instructions a leading system message", () => {
    const { request, warnings } = translate({ input: "Hi", instructions: "Be brief." });
    expect(request.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ]);
    expect(request.model).toBe("acme/chat-small");
    expect(warnings).toEqual([]);
  });

  test("items without type but with role and content are messages (easy input message)", () => {
    const { request } = translate({
      input: [
        { role: "developer", content: "Rules" },
        { role: "user", content: "Q" },
      ],
    });
    expect(request.messages).toEqual([
      { role: "developer", content: "Rules" },
      { role: "user", content: "Q" },
    ]);
  });

  test("input_text and input_image parts become text and image_url parts", () => {
    const { request } = translate({
      input: [
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "What is this?" },
            { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "low" },
          ],
        },
      ],
    });
    expect(request.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "low" } },
      ],
    });
  });

  test("text-only parts collapse to a string", () => {
    const { request } = translate({
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "a" },
            { type: "input_text", text: "b" },
          ],
        },
      ],
    });
    expect(request.messages[0]).toEqual({ role: "user", content: "ab" });
  });

  test("input_file becomes a file part; input_image by file_id is dropped with a warning", () => {
    const { request, warnings } = translate({
      input: [
        {
          role: "user",
          content: [
            { type: "input_file", file_data: "data:application/pdf;base64,JVBE", filename: "a.pdf" },
            { type: "input_image", file_id: "file_1", detail: "auto" },
          ],
        },
      ],
    });
    expect(request.messages[0]!.content).toEqual([
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBE", filename: "a.pdf" } },
    ]);
    expect(warnings.map((w) => w.code)).toEqual(["input[0].content[1]"]);
  });

  test("assistant output_text items, function_call items and outputs form a tool round trip", () => {
    const { request } = translate({
      input: [
        { role: "user", content: "Weather in Paris and Rome?" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
        { type: "function_call", call_id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call", call_id: "c2", name: "get_weather", arguments: '{"city":"Rome"}' },
        { type: "function_call_output", call_id: "c1", output: "18C" },
        { type: "function_call_output", call_id: "c2", output: [{ type: "input_text", text: "21C" }] },
        { type: "reasoning", id: "rs_1", summary: [] },
      ],
    });
    expect(request.messages).toEqual([
      { role: "user", content: "Weather in Paris and Rome?" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "c2", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "18C" },
      { role: "tool", tool_call_id: "c2", content: "21C" },
    ]);
  });

  test("a function_call with no assistant text before it starts an assistant turn with null content", () => {
    const { request } = translate({
      input: [
        { role: "user", content: "x" },
        { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
      ],
    });
    expect(request.messages[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
    });
  });

  test("function tools map to chat tools; hosted tools are dropped with a warning", () => {
    const { request, warnings } = translate({
      input: "x",
      tools: [
        { type: "function", name: "get_weather", description: "Weather", parameters: { type: "object", properties: {} }, strict: true },
        { type: "web_search" },
      ],
      tool_choice: { type: "function", name: "get_weather" },
      parallel_tool_calls: false,
    });
    expect(request.tools).toEqual([
      {
        type: "function",
        function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: {} }, strict: true },
      },
    ]);
    expect(request.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
    expect(request.parallel_tool_calls).toBe(false);
    expect(warnings).toEqual([
      { type: "unsupported_parameter", code: "tools[1]", message: "Hosted tool 'web_search' is not supported; it was dropped." },
    ]);
  });

  test("string tool_choice passes through", () => {
    const { request } = translate({ input: "x", tools: [{ type: "function", name: "f" }], tool_choice: "required" });
    expect(request.tool_choice).toBe("required");
  });

  test("sampling, limits, format, reasoning and user map to their chat fields", () => {
    const { request } = translate({
      input: "x",
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 64,
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true } },
      reasoning: { effort: "low" },
      user: "u-1",
      stream: true,
      metadata: { k: "v" },
      store: true,
    });
    expect(request).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 64,
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" }, strict: true } },
      reasoning_effort: "low",
      user: "u-1",
      stream: true,
    });
    // Storage-only fields are echoed in the response, never sent upstream.
    expect(request.metadata).toBeUndefined();
    expect(request.store).toBeUndefined();
  });

  test("prompt_cache_key travels on as chat's prompt_cache_key; Anthropic and Gemini take it without a warning", async () => {
    const { request } = translate({ input: "x", prompt_cache_key: "conv-7" });
    expect(request.prompt_cache_key).toBe("conv-7");
    const { anthropicAdapter } = await import("../../../src/providers/anthropic/adapter");
    const { geminiAdapter } = await import("../../../src/providers/gemini/adapter");
    const { target } = await import("../providers/stream-harness");
    const sent = { model: "m", messages: [{ role: "user" as const, content: "x" }], prompt_cache_key: "conv-7" };
    for (const [adapter, name] of [
      [anthropicAdapter, "anthropic"],
      [geminiAdapter, "gemini"],
    ] as const) {
      const built = adapter.buildRequest(sent, target(name));
      expect(built.warnings).toEqual([]);
      expect(JSON.parse(built.body).prompt_cache_key).toBeUndefined();
    }
  });

  test("json_object format maps; text format adds nothing", () => {
    expect(translate({ input: "x", text: { format: { type: "json_object" } } }).request.response_format).toEqual({ type: "json_object" });
    expect(translate({ input: "x", text: { format: { type: "text" } } }).request.response_format).toBeUndefined();
  });

  test("gateway and extensions are not part of the chat request", () => {
    const { request } = translate({ input: "x", gateway: { models: ["a"] }, extensions: { alpha: {} } });
    expect(request.gateway).toBeUndefined();
    expect(request.extensions).toBeUndefined();
  });

  test("a missing model (gateway.models[] instead) translates to an empty model", () => {
    const parsed = parseResponsesRequest({ input: "x", gateway: { models: ["a", "b"] } });
    expect(parsed.ok).toBe(true);
    expect(responsesToChat((parsed as { body: ResponsesRequest }).body).request.model).toBe("");
  });

  test("the echo repeats request fields with OpenAI's defaults", () => {
    const { echo } = translate({ input: "x", instructions: "I", metadata: { a: "b" } });
    expect(echo).toEqual({
      model: "acme/chat-small",
      instructions: "I",
      tools: [],
      tool_choice: "auto",
      parallel_tool_calls: true,
      temperature: null,
      top_p: null,
      max_output_tokens: null,
      metadata: { a: "b" },
      store: false,
      text: { format: { type: "text" } },
      reasoning: { effort: null, summary: null },
      truncation: "disabled",
      user: null,
      include: [],
      customTools: [],
    });
  });
});
