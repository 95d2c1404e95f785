// Issue 55, caching on the Anthropic wire: every cache_control marker reaches the block it marks (parts,
// tools, tool results, system blocks), and cache reads and writes come back in the usage, JSON and streamed.
import { describe, expect, test } from "bun:test";
import { anthropicAdapter as adapter } from "../../../src/providers/anthropic/adapter";
import type { ChatRequest, ToolDef } from "../../../src/providers/types";
import { runStream, target } from "./stream-harness";

const eph = { type: "ephemeral" };
const hour = { type: "ephemeral", ttl: "1h" };

function build(req: Partial<ChatRequest>) {
  const built = adapter.buildRequest({ model: "m", messages: [{ role: "user", content: "Hi" }], ...req }, target("anthropic"));
  return { ...built, json: JSON.parse(built.body) };
}

describe("anthropic caching: cache_control stays on its block", () => {
  test("text, image and file parts keep theirs", () => {
    const { json, warnings } = build({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Long context", cache_control: eph },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" }, cache_control: hour },
            { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" }, cache_control: eph },
            { type: "text", text: "Question" },
          ],
        },
      ],
    });
    expect(json.messages[0].content).toEqual([
      { type: "text", text: "Long context", cache_control: eph },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }, cache_control: hour },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" }, title: "a.pdf", cache_control: eph },
      { type: "text", text: "Question" },
    ]);
    expect(warnings).toEqual([]);
  });

  test("a tool definition's top-level cache_control is the Anthropic tool's", () => {
    const tools = [
      { type: "function", function: { name: "a", parameters: { type: "object" } } },
      { type: "function", function: { name: "b", parameters: { type: "object" } }, cache_control: eph },
    ] as ToolDef[];
    expect(build({ tools }).json.tools).toEqual([
      { name: "a", input_schema: { type: "object" } },
      { name: "b", input_schema: { type: "object" }, cache_control: eph },
    ]);
  });

  test("a tool message's cache_control is its tool_result block's; a marked part inside a result keeps its own", () => {
    const { json } = build({
      messages: [
        { role: "user", content: "Q" },
        { role: "assistant", content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "t1", content: "big result", cache_control: eph },
      ],
    });
    expect(json.messages[2].content).toEqual([{ type: "tool_result", tool_use_id: "t1", content: "big result", cache_control: eph }]);
    const parts = build({
      messages: [
        { role: "user", content: "Q" },
        { role: "assistant", content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "t1", content: [{ type: "text", text: "r", cache_control: eph }] },
      ],
    }).json;
    expect(parts.messages[2].content[0].content).toEqual([{ type: "text", text: "r", cache_control: eph }]);
  });

  test("a marked system part keeps the system prompt as text blocks, each with its own marker", () => {
    const { json } = build({
      messages: [
        {
          role: "system",
          content: [
            { type: "text", text: "Tools manual", cache_control: eph },
            { type: "text", text: "Be brief." },
          ],
        },
        { role: "developer", content: "Use French." },
        { role: "user", content: "Hi" },
      ],
      response_format: { type: "json_object" },
    });
    expect(json.system).toEqual([
      { type: "text", text: "Tools manual", cache_control: eph },
      { type: "text", text: "Be brief." },
      { type: "text", text: "Use French." },
      { type: "text", text: expect.stringContaining("JSON") },
    ]);
  });

  test("a system message's own cache_control marks its last block; no marker at all keeps the string", () => {
    const marked = build({
      messages: [
        { role: "system", content: "Stable prefix", cache_control: eph },
        { role: "user", content: "Hi" },
      ],
    });
    expect(marked.json.system).toEqual([{ type: "text", text: "Stable prefix", cache_control: eph }]);
    const plain = build({
      messages: [
        {
          role: "system",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
        { role: "system", content: "c" },
        { role: "user", content: "Hi" },
      ],
    });
    expect(plain.json.system).toBe("a\nb\n\nc");
  });

  test("a user or assistant message's own cache_control marks its last block (after tool calls, the last tool_use)", () => {
    const { json } = build({
      messages: [
        { role: "user", content: "Long question", cache_control: eph },
        {
          role: "assistant",
          content: "ok",
          tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{}" } }],
          cache_control: eph,
        },
        { role: "tool", tool_call_id: "t1", content: "r" },
      ],
    });
    expect(json.messages[0].content).toEqual([{ type: "text", text: "Long question", cache_control: eph }]);
    expect(json.messages[1].content).toEqual([
      { type: "text", text: "ok" },
      { type: "tool_use", id: "t1", name: "f", input: {}, cache_control: eph },
    ]);
  });
});

describe("anthropic caching: cache tokens in the usage", () => {
  const usage = { input_tokens: 40, cache_creation_input_tokens: 1_000, cache_read_input_tokens: 3_000, output_tokens: 7 };
  const expected = { inputTokens: 4_040, outputTokens: 7, cachedTokens: 3_000, cacheWriteTokens: 1_000, reasoningTokens: 0 };

  test("a JSON answer's cache reads and writes are counted inside inputTokens", () => {
    const json = { id: "msg_1", content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", usage };
    expect(adapter.parseResponse(json, target("anthropic")).usage).toEqual(expected);
  });

  test("a stream's, from message_start, with message_delta's final counts winning", async () => {
    const sse = (data: { type: string; [k: string]: unknown }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
    const events = await runStream("anthropic", [
      sse({ type: "message_start", message: { id: "msg_1", model: "claude", usage: { ...usage, output_tokens: 1 } } }),
      sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } }),
      sse({ type: "content_block_stop", index: 0 }),
      sse({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7, cache_read_input_tokens: 3_000 } }),
      sse({ type: "message_stop" }),
    ]);
    expect(events.filter((e) => e.type === "usage")).toEqual([{ type: "usage", usage: expected }]);
  });
});

describe("anthropic honesty: what the wire cannot carry still warns", () => {
  test("n > 1, logprobs, top_logprobs and seed are dropped with warnings; cache markers and hints raise none", () => {
    const { json, warnings } = build({
      n: 3,
      logprobs: true,
      top_logprobs: 2,
      seed: 1,
      messages: [{ role: "user", content: [{ type: "text", text: "Hi", cache_control: eph }] }],
    });
    expect(warnings.map((w) => w.code).sort()).toEqual(["logprobs", "n", "seed", "top_logprobs"]);
    expect(warnings.every((w) => w.type === "unsupported_parameter")).toBe(true);
    for (const field of ["n", "logprobs", "top_logprobs", "seed"]) expect(json[field]).toBeUndefined();
  });
});
