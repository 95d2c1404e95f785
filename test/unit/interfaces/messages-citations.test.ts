// Issue 53 part 5: `@ai-sdk/anthropic` validates `citations` as an optional array and refuses `null`, so
// a text block that cites nothing must not carry the field at all, in the Message and in the stream.
import { describe, expect, test } from "bun:test";
import { renderMessage } from "../../../src/inference/messages/render";
import { messagesStreamEncoder } from "../../../src/inference/messages/stream";
import { chatResult, encode, parseSse, textEvents, weatherCall } from "./pipeline-fixtures";

describe("messages: a text block without citations carries no citations field", () => {
  test("the rendered Message's text block has no citations key (not null)", () => {
    const m = renderMessage(chatResult({ content: "Checking.", tool_calls: [weatherCall] }, "tool_calls"));
    const text = m.content.find((b) => b.type === "text")!;
    expect(text).toEqual({ type: "text", text: "Checking." });
    expect("citations" in text).toBe(false);
    expect(JSON.stringify(m)).not.toContain("citations");
  });

  test("the stream's content_block_start for a text block has no citations key (not null)", async () => {
    const sse = await encode(messagesStreamEncoder({ model: "acme/chat-small" }), textEvents);
    const start = parseSse(sse).find((e) => e.event === "content_block_start")!;
    expect(start.data.content_block).toEqual({ type: "text", text: "" });
    expect(sse).not.toContain("citations");
  });
});
