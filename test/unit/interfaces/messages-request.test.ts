import { describe, expect, test } from "bun:test";
import { parseMessagesRequest } from "../../../src/inference/messages/schema";
import { messagesToChat } from "../../../src/inference/messages/to-chat";

function translate(body: Record<string, unknown>) {
  const parsed = parseMessagesRequest({ model: "acme/chat-small", max_tokens: 256, ...body });
  if (!parsed.ok) throw new Error(`unexpectedly invalid: ${parsed.error.message}`);
  return messagesToChat(parsed.body);
}

function rejection(body: unknown) {
  const parsed = parseMessagesRequest(body);
  if (parsed.ok) throw new Error("unexpectedly valid");
  return parsed.error;
}

describe("messages request validation", () => {
  test("max_tokens missing is rejected naming max_tokens", () => {
    expect(rejection({ model: "m", messages: [{ role: "user", content: "hi" }] })).toEqual({
      param: "max_tokens",
      message: "'max_tokens' is required.",
    });
  });

  test("max_tokens below 1 is rejected", () => {
    expect(rejection({ model: "m", max_tokens: 0, messages: [{ role: "user", content: "hi" }] }).param).toBe("max_tokens");
  });

  test("an empty messages array is rejected", () => {
    expect(rejection({ model: "m", max_tokens: 5, messages: [] }).param).toBe("messages");
  });

  test("a tool_result block without tool_use_id names the field inside the block", () => {
    const error = rejection({ model: "m", max_tokens: 5, messages: [{ role: "user", content: [{ type: "tool_result", content: "x" }] }] });
    expect(error.param).toBe("messages[0].content[0].tool_use_id");
  });

  test("a content block of an unknown type names its type", () => {
    const error = rejection({ model: "m", max_tokens: 5, messages: [{ role: "user", content: [{ type: "audio", data: "x" }] }] });
    expect(error.param).toBe("messages[0].content[0].type");
    expect(error.message).toContain('"redacted_thinking"; got "audio"');
  });

  test("a role the dialect does not have inside messages is rejected naming the role", () => {
    expect(rejection({ model: "m", max_tokens: 5, messages: [{ role: "tool", content: "x" }] }).param).toBe("messages[0].role");
  });

  test("a tool without a name is rejected", () => {
    const error = rejection({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }], tools: [{ input_schema: {} }] });
    expect(error.param).toBe("tools[0].name");
  });

  test("a body that is not an object is rejected as a whole", () => {
    expect(rejection("nope")).toEqual({ param: "", message: "The request body is invalid: expected object." });
  });
});

describe("messages request → chat request", () => {
  test("system string, text content and max_tokens map directly", () => {
    const { request, warnings } = translate({ system: "Be brief.", messages: [{ role: "user", content: "Hi" }] });
    expect(request).toEqual({
      model: "acme/chat-small",
      max_tokens: 256,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
      ],
    });
    expect(warnings).toEqual([]);
  });

  test("system text blocks are joined when none carries a cache breakpoint", () => {
    const { request } = translate({
      system: [
        { type: "text", text: "A" },
        { type: "text", text: "B" },
      ],
      messages: [{ role: "user", content: "x" }],
    });
    expect(request.messages[0]).toEqual({ role: "system", content: "A\n\nB" });
  });

  test("image blocks (base64 and url) become image_url parts beside text parts", () => {
    const { request } = translate({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Compare" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
            { type: "image", source: { type: "url", url: "https://example.test/a.jpg" } },
          ],
        },
      ],
    });
    expect(request.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Compare" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        { type: "image_url", image_url: { url: "https://example.test/a.jpg" } },
      ],
    });
  });

  test("a single text block collapses to a string", () => {
    const { request } = translate({ messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] });
    expect(request.messages[0]).toEqual({ role: "user", content: "Hi" });
  });

  test("tool_use blocks become assistant tool_calls with JSON arguments; thinking becomes reasoning_details", () => {
    const { request } = translate({
      messages: [
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "sig" },
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          ],
        },
      ],
    });
    expect(request.messages[1]).toEqual({
      role: "assistant",
      content: "Checking.",
      tool_calls: [{ id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
      reasoning_details: [{ type: "reasoning.text", text: "hmm", signature: "sig", format: "anthropic-claude-v1" }],
    });
  });

  test("an assistant turn with only tool_use has null content", () => {
    const { request } = translate({ messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }] });
    expect(request.messages[0]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "t", type: "function", function: { name: "f", arguments: "{}" } }],
    });
  });

  test("tool_result blocks become tool messages placed before the rest of the user turn", () => {
    const { request } = translate({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Here you go" },
            { type: "tool_result", tool_use_id: "toolu_1", content: "18C" },
            {
              type: "tool_result",
              tool_use_id: "toolu_2",
              content: [
                { type: "text", text: "21" },
                { type: "text", text: "C" },
              ],
              is_error: false,
            },
            {
              type: "tool_result",
              tool_use_id: "toolu_3",
              content: [{ type: "image", source: { type: "url", url: "https://example.test/chart.png" } }],
            },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      { role: "tool", tool_call_id: "toolu_1", content: "18C" },
      { role: "tool", tool_call_id: "toolu_2", content: "21C" },
      { role: "tool", tool_call_id: "toolu_3", content: "" },
      // Images a tool result held travel in the user message, which tool messages cannot carry.
      {
        role: "user",
        content: [
          { type: "text", text: "Here you go" },
          { type: "image_url", image_url: { url: "https://example.test/chart.png" } },
        ],
      },
    ]);
  });

  test("document blocks: base64 → file part, text → text, url → dropped with a warning", () => {
    const { request, warnings } = translate({
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" }, title: "a.pdf" },
            { type: "document", source: { type: "text", media_type: "text/plain", data: "plain" } },
            { type: "document", source: { type: "url", url: "https://example.test/a.pdf" } },
          ],
        },
      ],
    });
    expect(request.messages[0]!.content).toEqual([
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBE", filename: "a.pdf" } },
      { type: "text", text: "plain" },
    ]);
    expect(warnings.map((w) => w.code)).toEqual(["messages[0].content[2]"]);
  });

  test("tools map to function tools; server tools are dropped with a warning", () => {
    const { request, warnings } = translate({
      messages: [{ role: "user", content: "x" }],
      tools: [
        { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } } } },
        { type: "web_search_20250305", name: "web_search", max_uses: 3 },
      ],
      tool_choice: { type: "tool", name: "get_weather", disable_parallel_tool_use: true },
    });
    expect(request.tools).toEqual([
      {
        type: "function",
        function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
      },
    ]);
    expect(request.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
    expect(request.parallel_tool_calls).toBe(false);
    expect(warnings.map((w) => w.code)).toEqual(["tools[1]"]);
  });

  test("tool_choice auto / any / none map to auto / required / none", () => {
    const base = { messages: [{ role: "user", content: "x" }], tools: [{ name: "f", input_schema: { type: "object" } }] };
    expect(translate({ ...base, tool_choice: { type: "auto" } }).request.tool_choice).toBe("auto");
    expect(translate({ ...base, tool_choice: { type: "any" } }).request.tool_choice).toBe("required");
    expect(translate({ ...base, tool_choice: { type: "none" } }).request.tool_choice).toBe("none");
  });

  test("stop_sequences, sampling, top_k, metadata.user_id and stream map to chat fields", () => {
    const { request } = translate({
      messages: [{ role: "user", content: "x" }],
      stop_sequences: ["END"],
      temperature: 0.3,
      top_p: 0.8,
      top_k: 40,
      metadata: { user_id: "user-7" },
      stream: true,
    });
    expect(request).toMatchObject({ stop: ["END"], temperature: 0.3, top_p: 0.8, top_k: 40, user: "user-7", stream: true });
    expect(request.metadata).toBeUndefined();
  });

  test("an enabled thinking budget becomes a reasoning effort", () => {
    const effort = (budget_tokens: number) =>
      translate({ messages: [{ role: "user", content: "x" }], thinking: { type: "enabled", budget_tokens } }).request.reasoning_effort;
    expect([effort(1024), effort(8000), effort(32000)]).toEqual(["low", "medium", "high"]);
  });

  test("gateway is not part of the chat request and model may be omitted for gateway.models[]", () => {
    const parsed = parseMessagesRequest({ max_tokens: 5, messages: [{ role: "user", content: "x" }], gateway: { models: ["a"] } });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const { request } = messagesToChat(parsed.body);
    expect(request.model).toBe("");
    expect(request.gateway).toBeUndefined();
  });
});
