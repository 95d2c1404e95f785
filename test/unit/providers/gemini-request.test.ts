import { describe, expect, test } from "bun:test";
import { geminiAdapter as adapter } from "../../../src/providers/gemini/adapter";
import type { ChatMessage, ChatRequest } from "../../../src/providers/types";
import { target } from "./stream-harness";

function build(req: Partial<ChatRequest>, over = {}) {
  const built = adapter.buildRequest(
    { model: "m", messages: [{ role: "user", content: "Hi" }], ...req },
    target("gemini", { providerModelId: "gemini-2.5-flash", ...over }),
  );
  return { ...built, json: JSON.parse(built.body) };
}

describe("gemini buildRequest", () => {
  test("posts to :generateContent, or :streamGenerateContent?alt=sse for streams, with x-goog-api-key", () => {
    expect(build({}).url).toBe("https://api.example.test/v1beta/models/gemini-2.5-flash:generateContent");
    expect(build({ stream: true }).url).toBe("https://api.example.test/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(build({}, { providerModelId: "models/gemini-2.5-pro" }).url).toBe(
      "https://api.example.test/v1beta/models/gemini-2.5-pro:generateContent",
    );
    const built = build({});
    expect(built.headers["x-goog-api-key"]).toBe("sk-test-key-123456");
    expect(built.url).not.toContain("key=");
  });

  test("maps system messages to systemInstruction and roles to user/model contents", () => {
    const { json } = build({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello" },
      ],
    });
    expect(json.systemInstruction).toEqual({ parts: [{ text: "Be brief." }] });
    expect(json.contents).toEqual([
      { role: "user", parts: [{ text: "Hi" }] },
      { role: "model", parts: [{ text: "Hello" }] },
    ]);
  });

  test("turns tool calls into functionCall parts and tool results into functionResponse parts named by the call", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "Weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } },
          { id: "call_b", type: "function", function: { name: "get_time", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: '{"temp":18}' },
      { role: "tool", tool_call_id: "call_b", content: "noon" },
    ];
    const { json } = build({ messages });
    expect(json.contents[1]).toEqual({
      role: "model",
      parts: [{ functionCall: { name: "get_weather", args: { location: "Paris" } } }, { functionCall: { name: "get_time", args: {} } }],
    });
    expect(json.contents[2]).toEqual({
      role: "user",
      parts: [
        { functionResponse: { name: "get_weather", response: { temp: 18 } } },
        { functionResponse: { name: "get_time", response: { output: "noon" } } },
      ],
    });
  });

  test("maps data: images to inlineData and http images to fileData", () => {
    const { json } = build({
      messages: [
        {
          role: "user",
          content: [
            { type: "image_url", image_url: { url: "data:image/webp;base64,UklGRg==" } },
            { type: "image_url", image_url: { url: "https://example.test/a.png?x=1" } },
          ],
        },
      ],
    });
    expect(json.contents[0].parts).toEqual([
      { inlineData: { mimeType: "image/webp", data: "UklGRg==" } },
      { fileData: { mimeType: "image/png", fileUri: "https://example.test/a.png?x=1" } },
    ]);
  });

  test("maps sampling fields into generationConfig", () => {
    const { json } = build({
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 200,
      stop: "END",
      seed: 4,
      n: 2,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
    });
    expect(json.generationConfig).toEqual({
      temperature: 0.3,
      topP: 0.9,
      maxOutputTokens: 200,
      stopSequences: ["END"],
      seed: 4,
      candidateCount: 2,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
    });
  });

  test("maps response_format json_schema to responseMimeType and a Gemini-compatible responseSchema", () => {
    const schema = {
      $schema: "x",
      type: "object",
      additionalProperties: false,
      properties: { a: { type: ["string", "null"] }, kind: { const: "k" } },
      required: ["a"],
    };
    const { json } = build({ response_format: { type: "json_schema", json_schema: { name: "s", schema } } });
    expect(json.generationConfig).toEqual({
      responseMimeType: "application/json",
      responseSchema: { type: "object", properties: { a: { type: "string", nullable: true }, kind: { enum: ["k"] } }, required: ["a"] },
    });
    expect(build({ response_format: { type: "json_object" } }).json.generationConfig).toEqual({ responseMimeType: "application/json" });
  });

  test("maps tools to functionDeclarations (no parameters for an empty object schema) and tool_choice to toolConfig", () => {
    const tools: ChatRequest["tools"] = [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "W",
          parameters: { type: "object", properties: { location: { type: "string" } }, additionalProperties: false },
        },
      },
      { type: "function", function: { name: "now", parameters: { type: "object", properties: {} } } },
    ];
    const { json } = build({ tools, tool_choice: { type: "function", function: { name: "now" } } });
    expect(json.tools).toEqual([
      {
        functionDeclarations: [
          { name: "get_weather", description: "W", parameters: { type: "object", properties: { location: { type: "string" } } } },
          { name: "now" },
        ],
      },
    ]);
    expect(json.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["now"] } });
    expect(build({ tools, tool_choice: "required" }).json.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY" } });
    expect(build({ tools, tool_choice: "none" }).json.toolConfig).toEqual({ functionCallingConfig: { mode: "NONE" } });
  });

  test("maps reasoning_effort to a thinking budget within the model's range, asking for the thoughts", () => {
    expect(build({ reasoning_effort: "low" }).json.generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
    });
    expect(build({ reasoning_effort: "xhigh" }).json.generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 24576, includeThoughts: true },
    });
    expect(build({ reasoning_effort: "xhigh" }, { providerModelId: "gemini-2.5-pro" }).json.generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 32768, includeThoughts: true },
    });
    expect(build({ reasoning_effort: "low" }).warnings).toEqual([]);
  });

  test("an effort outside the table is dropped with a warning, not silently", () => {
    const built = build({ reasoning_effort: "extreme" });
    expect(built.json.generationConfig?.thinkingConfig).toBeUndefined();
    expect(built.warnings.map((w) => w.code)).toEqual(["reasoning_effort"]);
  });

  test("drops logit_bias, logprobs, user and unknown fields with a warning each", () => {
    const built = build({ logit_bias: { "1": 1 }, logprobs: true, user: "u", mystery: 1 });
    expect(built.warnings.map((w) => w.code).sort()).toEqual(["logit_bias", "logprobs", "mystery", "user"]);
    expect(built.json.mystery).toBeUndefined();
  });

  test("merges extensions one level deep (generationConfig keys add to the translated ones)", () => {
    const { json } = build({ temperature: 0.2 }, { extensions: { generationConfig: { topK: 5 }, safetySettings: [] } });
    expect(json.generationConfig).toEqual({ temperature: 0.2, topK: 5 });
    expect(json.safetySettings).toEqual([]);
  });
});
