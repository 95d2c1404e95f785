import { describe, expect, test } from "bun:test";
import { renderResponse } from "../../../src/inference/responses/render";
import { responsesEcho } from "../../../src/inference/responses/to-chat";
import { decodeCarried } from "../../../src/providers/reasoning";
import { chatResult, weatherCall } from "./pipeline-fixtures";
import { anthropicDetails, citation, geminiDetails, responsesDetails } from "./responses-lossless-fixtures";

const echo = responsesEcho({ model: "acme/chat-small", input: "hi" });
const echoEncrypted = responsesEcho({ model: "acme/chat-small", input: "hi", include: ["reasoning.encrypted_content"] });

describe("responses render: reasoning items", () => {
  test("another family's entries are one item before the message: their text as the summary, the entries as a carried token", () => {
    for (const e of [echo, echoEncrypted]) {
      const r = renderResponse(chatResult({ content: "Sunny.", reasoning_details: anthropicDetails }, "stop"), e);
      expect(r.output.map((i) => i.type)).toEqual(["reasoning", "message"]);
      const item = r.output[0] as Record<string, any>;
      expect(item.id).toMatch(/^rs_[A-Za-z0-9]{24}$/);
      expect(item.summary).toEqual([{ type: "summary_text", text: "The user wants Paris weather." }]);
      expect(item.content).toBeUndefined();
      // Carried tokens are shown whether or not the client asked for encrypted content: nothing else brings the signature back.
      expect(decodeCarried(item.encrypted_content)).toEqual(anthropicDetails);
    }
  });

  test("Responses entries are their own items with their ids; encrypted_content only when include asks for it", () => {
    const result = chatResult({ content: null, tool_calls: [weatherCall], reasoning_details: responsesDetails }, "tool_calls");
    const plain = renderResponse(result, echo);
    expect(plain.output.map((i) => i.type)).toEqual(["reasoning", "reasoning", "function_call"]);
    expect(plain.output.slice(0, 2)).toEqual([
      {
        type: "reasoning",
        id: "rs_aaa",
        summary: [
          { type: "summary_text", text: "**Planning**\n\nLook up the weather." },
          { type: "summary_text", text: "**Choosing the tool**" },
        ],
      },
      { type: "reasoning", id: "rs_bbb", summary: [], content: [{ type: "reasoning_text", text: "raw chain of thought" }] },
    ]);
    const asked = renderResponse(result, echoEncrypted);
    expect(asked.output[0]).toMatchObject({ id: "rs_aaa", encrypted_content: "gAAAAABencrypted==" });
    expect(asked.output[1]).not.toHaveProperty("encrypted_content");
  });

  test("mixed families: each run is its own item, in order", () => {
    const r = renderResponse(
      chatResult({ content: "x", reasoning_details: [...geminiDetails, ...responsesDetails.slice(0, 1)] }, "stop"),
      echo,
    );
    expect(r.output.map((i) => (i.type === "reasoning" ? i.id.slice(0, 6) : i.type))).toEqual([
      expect.stringMatching(/^rs_/),
      "rs_aaa",
      "message",
    ]);
    expect(decodeCarried((r.output[0] as { encrypted_content: string }).encrypted_content)).toEqual(geminiDetails);
  });

  test("a bare reasoning_content (no entries) is one item of no provider's family", () => {
    const r = renderResponse(chatResult({ content: "4", reasoning_content: "two plus two" }, "stop"), echo);
    const item = r.output[0] as Record<string, any>;
    expect(item.summary).toEqual([{ type: "summary_text", text: "two plus two" }]);
    expect(decodeCarried(item.encrypted_content)).toEqual([{ type: "reasoning.text", text: "two plus two", format: "unknown" }]);
  });

  test("an entry run with no text has an empty summary", () => {
    const r = renderResponse(chatResult({ content: "x", reasoning_details: [anthropicDetails[1]!] }, "stop"), echo);
    expect((r.output[0] as { summary: unknown[] }).summary).toEqual([]);
  });

  test("the echo tells the summary asked for", () => {
    const e = responsesEcho({ model: "m", input: "hi", reasoning: { effort: "medium", summary: "auto" } });
    expect(renderResponse(chatResult({ content: "x" }, "stop"), e).reasoning).toEqual({ effort: "medium", summary: "auto" });
  });
});

describe("responses render: the rest of the answer", () => {
  test("chat's nested url_citation is Responses' flat one on the output_text part", () => {
    const r = renderResponse(
      chatResult({ content: "Paris weather is mild.", annotations: [citation, { type: "unknown_kind" }] }, "stop"),
      echo,
    );
    expect(r.output[0]).toMatchObject({
      type: "message",
      content: [
        {
          type: "output_text",
          text: "Paris weather is mild.",
          annotations: [{ type: "url_citation", url: "https://example.com/paris", title: "Paris weather", start_index: 0, end_index: 12 }],
        },
      ],
    });
  });

  test("a call to a custom tool is a custom_tool_call with the input string; other calls stay function calls", () => {
    const e = responsesEcho({ model: "m", input: "hi", tools: [{ type: "custom", name: "apply_patch" }] });
    const patch = {
      id: "call_p",
      type: "function" as const,
      function: { name: "apply_patch", arguments: '{"input":"*** Begin Patch\\n"}' },
    };
    const r = renderResponse(chatResult({ content: null, tool_calls: [patch, weatherCall] }, "tool_calls"), e);
    expect(r.output[0]).toEqual({
      type: "custom_tool_call",
      id: expect.stringMatching(/^ctc_/),
      call_id: "call_p",
      name: "apply_patch",
      input: "*** Begin Patch\n",
    });
    expect(r.output[1]).toMatchObject({ type: "function_call", name: "get_weather" });
    expect(r.tools).toEqual([{ type: "custom", name: "apply_patch" }]);
  });

  test("logprobs are on the output_text part only when include asks for them", () => {
    const tokens = [{ token: "4", logprob: -0.01, bytes: [52], top_logprobs: [{ token: "4", logprob: -0.01, bytes: [52] }] }];
    const result = chatResult({ content: "4" }, "stop");
    result.result.choices[0]!.logprobs = { content: tokens };
    const asked = responsesEcho({ model: "m", input: "hi", include: ["message.output_text.logprobs"] });
    expect((renderResponse(result, asked).output[0] as any).content[0].logprobs).toEqual(tokens);
    expect((renderResponse(result, echo).output[0] as any).content[0]).not.toHaveProperty("logprobs");
  });

  test("previous_response_id, truncation and safety_identifier are echoed", () => {
    const e = {
      ...responsesEcho({ model: "m", input: "hi", truncation: "auto", safety_identifier: "h1" }),
      previousResponseId: "resp_prev",
    };
    const r = renderResponse(chatResult({ content: "x" }, "stop"), e);
    expect(r).toMatchObject({ previous_response_id: "resp_prev", truncation: "auto", safety_identifier: "h1" });
    expect(renderResponse(chatResult({ content: "x" }, "stop"), echo)).toMatchObject({
      previous_response_id: null,
      truncation: "disabled",
    });
    expect(renderResponse(chatResult({ content: "x" }, "stop"), echo)).not.toHaveProperty("safety_identifier");
  });

  test("usage reports cached and cache-write tokens", () => {
    expect(renderResponse(chatResult({ content: "x" }, "stop"), echo).usage?.input_tokens_details).toEqual({
      cached_tokens: 5,
      cache_write_tokens: 3,
    });
  });
});
