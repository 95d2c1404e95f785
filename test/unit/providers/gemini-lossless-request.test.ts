// What a translated chat request carries to Gemini (issue 55 items 2 and 4, convention 7): effort on
// 2.5 and 3 models, an Anthropic client's exact budget, includeThoughts, files and media, tool results
// with images, structured output, stop sequences, parallel_tool_calls, and no cache markers.
import { describe, expect, test } from "bun:test";
import { geminiAdapter as adapter } from "../../../src/providers/gemini/adapter";
import { HINTS, type ChatRequest, type RequestHints } from "../../../src/providers/types";
import { target } from "./stream-harness";

function build(req: Partial<ChatRequest>, model = "gemini-2.5-flash", hints?: RequestHints) {
  const full: ChatRequest = { model: "m", messages: [{ role: "user", content: "Hi" }], ...req };
  if (hints) full[HINTS] = hints;
  const built = adapter.buildRequest(full, target("gemini", { providerModelId: model }));
  return { json: JSON.parse(built.body), warnings: built.warnings };
}

const thinking = (req: Partial<ChatRequest>, model?: string, hints?: RequestHints) =>
  build(req, model, hints).json.generationConfig?.thinkingConfig;

describe("gemini effort", () => {
  test("2.5: the effort table's budgets, clamped to the model's range; none turns thinking off where the model can", () => {
    expect(thinking({ reasoning_effort: "none" })).toEqual({ thinkingBudget: 0 });
    expect(thinking({ reasoning_effort: "minimal" })).toEqual({ thinkingBudget: 0 });
    expect(thinking({ reasoning_effort: "medium" })).toEqual({ thinkingBudget: 8192, includeThoughts: true });
    expect(thinking({ reasoning_effort: "high" })).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    const pro = build({ reasoning_effort: "none" }, "gemini-2.5-pro");
    expect(pro.json.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 128 });
    expect(pro.warnings.map((w) => w.code)).toEqual(["reasoning_effort"]);
  });

  test("3: thinking levels instead of budgets, rounded to what the model takes", () => {
    expect(thinking({ reasoning_effort: "low" }, "gemini-3-pro-preview")).toEqual({ thinkingLevel: "low", includeThoughts: true });
    expect(thinking({ reasoning_effort: "medium" }, "gemini-3-pro-preview")).toEqual({ thinkingLevel: "high", includeThoughts: true });
    expect(thinking({ reasoning_effort: "medium" }, "gemini-3.1-pro-preview")).toEqual({ thinkingLevel: "medium", includeThoughts: true });
    expect(thinking({ reasoning_effort: "xhigh" }, "gemini-3.1-pro-preview")).toEqual({ thinkingLevel: "high", includeThoughts: true });
    expect(thinking({ reasoning_effort: "minimal" }, "gemini-3-flash-preview")).toEqual({ thinkingLevel: "minimal" });
    expect(thinking({ reasoning_effort: "minimal" }, "gemini-3.1-pro-preview")).toEqual({ thinkingLevel: "low" });
    const none = build({ reasoning_effort: "none" }, "gemini-3.1-pro-preview");
    expect(none.json.generationConfig.thinkingConfig).toEqual({ thinkingLevel: "low" });
    expect(none.warnings.map((w) => w.code)).toEqual(["reasoning_effort"]);
    expect(JSON.stringify(build({ reasoning_effort: "high" }, "models/gemini-3-flash-preview").json)).not.toContain("thinkingBudget");
  });

  test("an Anthropic client's budget_tokens is the 2.5 budget exactly (a Gemini 3 level by the same table), with the thoughts", () => {
    expect(thinking({ reasoning_effort: "medium" }, "gemini-2.5-flash", { thinkingBudget: 5000 })).toEqual({
      thinkingBudget: 5000,
      includeThoughts: true,
    });
    expect(thinking({}, "gemini-3.1-pro-preview", { thinkingBudget: 5000 })).toEqual({ thinkingLevel: "medium", includeThoughts: true });
    expect(thinking({}, "gemini-3.1-pro-preview", { thinkingBudget: 1024 })).toEqual({ thinkingLevel: "low", includeThoughts: true });
    const over = build({}, "gemini-2.5-flash", { thinkingBudget: 30000 });
    expect(over.json.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    expect(over.warnings.map((w) => w.code)).toEqual(["thinking.budget_tokens"]);
  });

  test("a Responses reasoning.summary alone asks for the thoughts; nothing asked sends no thinkingConfig", () => {
    expect(thinking({}, "gemini-2.5-flash", { reasoningSummary: "auto" })).toEqual({ includeThoughts: true });
    expect(thinking({})).toBeUndefined();
  });
});

describe("gemini content", () => {
  test("file parts (data URL, bare base64, URL) and input_audio become inlineData / fileData", () => {
    const { json, warnings } = build({
      messages: [
        {
          role: "user",
          content: [
            { type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBERi0=" } },
            { type: "file", file: { filename: "notes.txt", file_data: "aGVsbG8=" } },
            { type: "file", file: { file_id: "https://generativelanguage.googleapis.com/v1beta/files/abc" } },
            { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
            { type: "file", file: { file_id: "file-openai123" } },
          ],
        },
      ],
    });
    expect(json.contents[0].parts).toEqual([
      { inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } },
      { inlineData: { mimeType: "text/plain", data: "aGVsbG8=" } },
      { fileData: { mimeType: "application/pdf", fileUri: "https://generativelanguage.googleapis.com/v1beta/files/abc" } },
      { inlineData: { mimeType: "audio/wav", data: "UklGRg==" } },
    ]);
    expect(warnings.map((w) => w.code)).toEqual(["content.file"]);
  });

  test("a tool result's images follow its functionResponse in the same user turn", () => {
    const { json } = build({
      messages: [
        { role: "user", content: "Screenshot?" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "shot", arguments: "{}" } }] },
        {
          role: "tool",
          tool_call_id: "c1",
          content: [
            { type: "text", text: "taken" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw==" } },
          ],
        },
      ],
    });
    expect(json.contents[2]).toEqual({
      role: "user",
      parts: [
        { functionResponse: { name: "shot", response: { output: "taken" } } },
        { inlineData: { mimeType: "image/png", data: "iVBORw==" } },
      ],
    });
  });

  test("cache_control on parts, system blocks, tools and tool messages never reaches the body, and is not warned about", () => {
    const eph = { type: "ephemeral" };
    const { json, warnings } = build({
      messages: [
        { role: "system", content: [{ type: "text", text: "Rules.", cache_control: eph }] },
        {
          role: "user",
          content: [
            { type: "text", text: "Look", cache_control: eph },
            { type: "image_url", image_url: { url: "data:image/png;base64,AA==" }, cache_control: eph },
            { type: "file", file: { file_data: "data:application/pdf;base64,JV==" }, cache_control: eph },
          ],
        },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "ok", cache_control: eph },
      ],
      tools: [
        { type: "function", function: { name: "f", description: "d" }, cache_control: eph } as NonNullable<ChatRequest["tools"]>[number],
      ],
    });
    expect(JSON.stringify(json)).not.toContain("cache_control");
    expect(JSON.stringify(json)).not.toContain("ephemeral");
    expect(json.systemInstruction).toEqual({ parts: [{ text: "Rules." }] });
    expect(warnings).toEqual([]);
  });

  test("structured output: json_object → JSON mode; json_schema strict → responseSchema without strict or additionalProperties", () => {
    expect(build({ response_format: { type: "json_object" } }).json.generationConfig).toEqual({ responseMimeType: "application/json" });
    const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
    const { json, warnings } = build({ response_format: { type: "json_schema", json_schema: { name: "s", strict: true, schema } } });
    expect(json.generationConfig).toEqual({
      responseMimeType: "application/json",
      responseSchema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
    });
    expect(warnings).toEqual([]);
  });

  test("stop sequences: up to Gemini's five, the rest dropped with a warning; n is candidateCount", () => {
    expect(build({ stop: ["a", "b"], n: 3 }).json.generationConfig).toEqual({ stopSequences: ["a", "b"], candidateCount: 3 });
    const many = build({ stop: ["1", "2", "3", "4", "5", "6"] });
    expect(many.json.generationConfig.stopSequences).toEqual(["1", "2", "3", "4", "5"]);
    expect(many.warnings.map((w) => w.code)).toEqual(["stop"]);
  });

  test("parallel_tool_calls: false is warned about (Gemini cannot say it); true is its behaviour and is not", () => {
    expect(build({ parallel_tool_calls: false }).warnings.map((w) => w.code)).toEqual(["parallel_tool_calls"]);
    expect(build({ parallel_tool_calls: true }).warnings).toEqual([]);
  });

  test("web_search_options asks for Google Search grounding, next to the function tools", () => {
    const { json, warnings } = build({
      web_search_options: {},
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { x: { type: "string" } } } } }],
    });
    expect(json.tools).toEqual([
      { functionDeclarations: [{ name: "f", parameters: { type: "object", properties: { x: { type: "string" } } } }] },
      { googleSearch: {} },
    ]);
    expect(warnings).toEqual([]);
  });
});
