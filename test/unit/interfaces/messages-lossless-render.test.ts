// Issue 55 on the Messages answer: reasoning opens the content as thinking blocks (Anthropic entries as
// their own, other families' runs carried in the signature), annotations become citations.
import { describe, expect, test } from "bun:test";
import { renderMessage } from "../../../src/inference/messages/render";
import { decodeCarried, encodeCarried } from "../../../src/providers/reasoning";
import { chatResult, weatherCall } from "./pipeline-fixtures";
import {
  claudeRedacted,
  claudeThought,
  geminiCallSignature,
  geminiThought,
  responsesEncrypted,
  responsesSummary,
} from "./messages-lossless-fixtures";

describe("messages render: reasoning → thinking blocks first", () => {
  test("Anthropic entries are their own blocks; runs of others are one block each, signed with their token", () => {
    const m = renderMessage(
      chatResult(
        {
          content: "Checking.",
          tool_calls: [weatherCall],
          reasoning_content: "ignored when details are given",
          reasoning_details: [geminiThought, geminiCallSignature, claudeThought, claudeRedacted, responsesSummary, responsesEncrypted],
        },
        "tool_calls",
      ),
    );
    expect(m.content).toEqual([
      { type: "thinking", thinking: geminiThought.text, signature: encodeCarried([geminiThought, geminiCallSignature]) },
      { type: "thinking", thinking: claudeThought.text, signature: claudeThought.signature! },
      { type: "redacted_thinking", data: claudeRedacted.data },
      { type: "thinking", thinking: responsesSummary.summary, signature: encodeCarried([responsesSummary, responsesEncrypted]) },
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
    ]);
  });

  test("a bare reasoning_content (DeepSeek) is a thinking block whose signature carries it as an unknown entry", () => {
    const m = renderMessage(chatResult({ content: "42", reasoning_content: "Six times seven." }, "stop"));
    const block = m.content[0] as { type: string; thinking: string; signature: string };
    expect(block).toMatchObject({ type: "thinking", thinking: "Six times seven." });
    expect(decodeCarried(block.signature)).toEqual([{ type: "reasoning.text", text: "Six times seven.", format: "unknown" }]);
    expect(m.content[1]).toEqual({ type: "text", text: "42" });
  });

  test("an Anthropic entry that an Anthropic block cannot say exactly (an id) is carried, not cut", () => {
    const withId = { ...claudeThought, id: "x" };
    expect(renderMessage(chatResult({ content: "a", reasoning_details: [withId] }, "stop")).content[0]).toEqual({
      type: "thinking",
      thinking: claudeThought.text,
      signature: encodeCarried([withId]),
    });
  });

  test("no reasoning, no thinking block", () => {
    expect(renderMessage(chatResult({ content: "a", reasoning_details: [] }, "stop")).content).toEqual([{ type: "text", text: "a" }]);
  });
});

describe("messages render: annotations → citations", () => {
  const content = "Paris is sunny today.";

  test("a url_citation is a web_search_result_location cut from the content; an Anthropic original comes back as it was", () => {
    const original = {
      type: "char_location",
      cited_text: "sunny",
      document_index: 0,
      document_title: "Forecast",
      start_char_index: 9,
      end_char_index: 14,
    };
    const m = renderMessage(
      chatResult(
        {
          content,
          annotations: [
            { type: "url_citation", url_citation: { url: "https://w.example/p", title: "Weather", start_index: 0, end_index: 5 } },
            {
              type: "url_citation",
              url_citation: { url: "https://a.example", title: "A", start_index: 9, end_index: 14 },
              anthropic: original,
            },
            { type: "file_citation", file_citation: { file_id: "f" } },
          ],
        },
        "stop",
      ),
    );
    expect(m.content).toEqual([
      {
        type: "text",
        text: content,
        citations: [
          { type: "web_search_result_location", url: "https://w.example/p", title: "Weather", cited_text: "Paris", encrypted_index: "" },
          original,
        ],
      },
    ]);
  });

  test("annotations with no Anthropic shape leave the text block without a citations key", () => {
    const m = renderMessage(chatResult({ content, annotations: [{ type: "file_citation" }] }, "stop"));
    expect("citations" in m.content[0]!).toBe(false);
  });
});
