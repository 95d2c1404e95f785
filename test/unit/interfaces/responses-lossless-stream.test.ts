import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { renderResponse, type ResponseObject } from "../../../src/inference/responses/render";
import { responsesStreamEncoder } from "../../../src/inference/responses/stream";
import { parseResponsesRequest } from "../../../src/inference/responses/schema";
import { responsesEcho, responsesToChat, type ResponsesEcho } from "../../../src/inference/responses/to-chat";
import type { PipelineEvent } from "../../../src/inference/types";
import { decodeCarried } from "../../../src/providers/reasoning";
import { chatResult, delta, done, encode, fetchReturning, parseSse, type SseEvent } from "./pipeline-fixtures";
import {
  anthropicDetails,
  anthropicReasoningEvents,
  citation,
  citationEvents,
  comparable,
  customCallEvents,
  reasoningContentEvents,
  responsesDetails,
  responsesReasoningEvents,
} from "./responses-lossless-fixtures";

const echo = responsesEcho({ model: "acme/chat-small", input: "hi" });
const echoEncrypted = responsesEcho({ model: "acme/chat-small", input: "hi", include: ["reasoning.encrypted_content"] });

async function run(events: PipelineEvent[], e: ResponsesEcho = echo): Promise<SseEvent[]> {
  return parseSse(await encode(responsesStreamEncoder(e, "resp_test"), events));
}

const final = (events: SseEvent[]) => events[events.length - 1]!.data.response as ResponseObject;
const of = (events: SseEvent[], type: string) => events.filter((e) => e.event === type).map((e) => e.data);
const types = (events: SseEvent[]) => events.map((e) => e.event).slice(2, -1);

/** The events of one summary part streamed in `deltas` pieces. */
const summaryPart = (deltas: number) => [
  "response.reasoning_summary_part.added",
  ...Array<string>(deltas).fill("response.reasoning_summary_text.delta"),
  "response.reasoning_summary_text.done",
  "response.reasoning_summary_part.done",
];

describe("responses stream: reasoning items", () => {
  test("Anthropic thinking streams as one carried item's summary, closed before the message, with the token at done", async () => {
    const events = await run(anthropicReasoningEvents);
    expect(types(events)).toEqual([
      "response.output_item.added",
      ...summaryPart(2),
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
    ]);
    const added = of(events, "response.output_item.added")[0]!;
    expect(added.item).toEqual({ type: "reasoning", id: expect.stringMatching(/^rs_/), summary: [] });
    const id = (added.item as { id: string }).id;
    expect(of(events, "response.reasoning_summary_part.added")[0]).toMatchObject({
      item_id: id,
      output_index: 0,
      summary_index: 0,
      part: { type: "summary_text", text: "" },
    });
    expect(of(events, "response.reasoning_summary_text.delta").map((d) => d.delta)).toEqual(["The user wants ", "Paris weather."]);
    expect(of(events, "response.reasoning_summary_text.done")[0]).toMatchObject({
      item_id: id,
      summary_index: 0,
      text: "The user wants Paris weather.",
    });
    const doneItem = of(events, "response.output_item.done")[0]!.item as Record<string, any>;
    expect(decodeCarried(doneItem.encrypted_content)).toEqual(anthropicDetails);
    expect(of(events, "response.output_item.added")[1]).toMatchObject({ output_index: 1, item: { type: "message" } });
  });

  test("the stream's final response equals what the JSON route answers for the same answer", async () => {
    const cases: [PipelineEvent[], Parameters<typeof chatResult>, ResponsesEcho][] = [
      [anthropicReasoningEvents, [{ content: "Sunny, 18C.", reasoning_details: anthropicDetails }, "stop"], echo],
      [
        responsesReasoningEvents,
        [
          {
            content: null,
            tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
            reasoning_details: responsesDetails,
          },
          "tool_calls",
        ],
        echoEncrypted,
      ],
      [reasoningContentEvents, [{ content: "4", reasoning_content: "Hmm, two plus two." }, "stop"], echo],
    ];
    for (const [events, result, e] of cases) {
      const streamed = final(await run(events, e));
      const json = renderResponse(chatResult(...result), e, "resp_test");
      // Carried items get a fresh id each time; their tokens decode to the same entries.
      const carried = (r: ResponseObject) =>
        r.output.flatMap((i) =>
          i.type === "reasoning" && i.encrypted_content?.startsWith("swy1.") ? [decodeCarried(i.encrypted_content)] : [],
        );
      expect(carried(streamed)).toEqual(carried(json));
      const strip = (r: ResponseObject) => ({
        ...(comparable(r) as object),
        output: (comparable(r) as ResponseObject).output.map((i) =>
          i.type === "reasoning" && i.encrypted_content?.startsWith("swy1.") ? { ...i, id: "rs", encrypted_content: "carried" } : i,
        ),
      });
      expect(strip(streamed)).toEqual(strip(json));
    }
  });

  test("Responses entries stream as their own items: summary_index per part, reasoning_text as content parts", async () => {
    const events = await run(responsesReasoningEvents, echoEncrypted);
    expect(types(events).slice(0, 17)).toEqual([
      "response.output_item.added",
      ...summaryPart(2),
      ...summaryPart(1),
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.reasoning_text.delta",
      "response.reasoning_text.done",
      "response.content_part.done",
      "response.output_item.done",
    ]);
    expect(of(events, "response.reasoning_summary_part.added").map((e) => [e.item_id, e.summary_index])).toEqual([
      ["rs_aaa", 0],
      ["rs_aaa", 1],
    ]);
    expect(of(events, "response.reasoning_text.delta")[0]).toMatchObject({
      item_id: "rs_bbb",
      output_index: 1,
      content_index: 0,
      delta: "raw chain of thought",
    });
    const done = of(events, "response.output_item.done").map((e) => e.item);
    expect(done[0]).toMatchObject({ id: "rs_aaa", encrypted_content: "gAAAAABencrypted==" });
    expect(final(events).output.map((i) => i.type)).toEqual(["reasoning", "reasoning", "function_call"]);
  });

  test("without include, a Responses item's encrypted_content is not shown", async () => {
    const events = await run(responsesReasoningEvents);
    for (const e of of(events, "response.output_item.done")) expect(e.item).not.toHaveProperty("encrypted_content");
  });

  test("reasoning_content alone streams as an item of no provider's family", async () => {
    const events = await run(reasoningContentEvents);
    expect(of(events, "response.reasoning_summary_text.delta").map((d) => d.delta)).toEqual(["Hmm, ", "two plus two."]);
    const item = final(events).output[0] as Record<string, any>;
    expect(decodeCarried(item.encrypted_content)).toEqual([{ type: "reasoning.text", text: "Hmm, two plus two.", format: "unknown" }]);
  });

  test("a carried run's later entries join its summary after a blank line, as the JSON route joins them", async () => {
    const f = (index: number, text: string) =>
      delta({ extra: { reasoning_details: [{ type: "reasoning.text", format: "google-gemini-v1", index, text }] } });
    const events = await run([f(0, "One."), f(1, "Two."), delta({ content: "x" }, "stop"), done]);
    expect(of(events, "response.reasoning_summary_text.delta").map((d) => d.delta)).toEqual(["One.", "\n\nTwo."]);
    expect((final(events).output[0] as { summary: unknown }).summary).toEqual([{ type: "summary_text", text: "One.\n\nTwo." }]);
  });
});

describe("responses stream: opaque state that comes mid-answer", () => {
  test("a call's signature arriving with the call does not split the answer: its item comes last, and goes back on that turn", async () => {
    const signature = { type: "reasoning.encrypted", format: "google-gemini-v1", index: 0, id: "call_1", data: "c2lnLWNhbGw=" };
    const events = await run([
      delta({ role: "assistant", content: "Let me check." }),
      delta({
        extra: { reasoning_details: [signature] },
        tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
      }),
      delta({}, "tool_calls"),
      done,
    ]);
    const output = final(events).output;
    expect(output.map((i) => i.type)).toEqual(["message", "function_call", "reasoning"]);
    const { index: _index, ...entry } = signature;
    expect(decodeCarried((output[2] as { encrypted_content: string }).encrypted_content)).toEqual([entry as never]);
    expect(of(events, "response.output_item.added").map((e) => e.output_index)).toEqual([0, 1, 2]);
    // Sent back, the entry is on the assistant turn with the call it signs.
    const parsed = parseResponsesRequest({
      model: "m",
      input: [{ role: "user", content: "Weather?" }, ...output, { type: "function_call_output", call_id: "call_1", output: "18C" }],
    });
    if (!parsed.ok) throw new Error(parsed.error.message);
    const assistant = responsesToChat(parsed.body).request.messages[1]!;
    expect(assistant).toMatchObject({ role: "assistant", content: "Let me check.", reasoning_details: [entry] });
    expect(assistant.tool_calls?.[0]?.id).toBe("call_1");
  });
});

describe("responses stream: citations and custom tools", () => {
  test("a citation is an output_text.annotation.added event and a flat annotation on the part", async () => {
    const events = await run(citationEvents);
    const flat = { type: "url_citation", url: "https://example.com/paris", title: "Paris weather", start_index: 0, end_index: 12 };
    expect(of(events, "response.output_text.annotation.added")).toEqual([
      expect.objectContaining({ output_index: 0, content_index: 0, annotation_index: 0, annotation: flat }),
    ]);
    expect(final(events).output[0]).toMatchObject({ content: [{ text: "Paris weather is mild.", annotations: [flat] }] });
    const json = renderResponse(chatResult({ content: "Paris weather is mild.", annotations: [citation] }, "stop"), echo, "resp_test");
    expect(comparable(final(events))).toEqual(comparable(json));
  });

  test("a custom tool call streams its input as it decodes, an escape cut between fragments included", async () => {
    const e = responsesEcho({ model: "acme/chat-small", input: "hi", tools: [{ type: "custom", name: "apply_patch" }] });
    const events = await run(customCallEvents, e);
    expect(of(events, "response.output_item.added")[0]!.item).toEqual({
      type: "custom_tool_call",
      id: expect.stringMatching(/^ctc_/),
      call_id: "call_p",
      name: "apply_patch",
      input: "",
    });
    const deltas = of(events, "response.custom_tool_call_input.delta").map((d) => d.delta);
    expect(deltas.join("")).toBe("*** Begin Patch\n*** End Patch");
    expect(deltas).toEqual(["*** Begin Patch", "\n*** End Patch"]);
    expect(of(events, "response.custom_tool_call_input.done")[0]).toMatchObject({ input: "*** Begin Patch\n*** End Patch" });
    expect(final(events).output[0]).toMatchObject({ type: "custom_tool_call", input: "*** Begin Patch\n*** End Patch" });
  });
});

describe("the openai SDK accumulates the reasoning stream", () => {
  const SSE = { status: 200, headers: { "content-type": "text/event-stream" } };
  const client = (body: string) =>
    new OpenAI({ apiKey: "sk-test", baseURL: "http://gateway.invalid/v1", fetch: fetchReturning(body, SSE), maxRetries: 0 });

  test("summary parts, reasoning text, calls and the final response", async () => {
    for (const events of [anthropicReasoningEvents, responsesReasoningEvents, citationEvents]) {
      const body = await encode(responsesStreamEncoder(echoEncrypted, "resp_test"), events);
      const r = await client(body).responses.stream({ model: "acme/chat-small", input: "hi" }).finalResponse();
      // The SDK's accumulator throws on an event that does not fit its snapshot; `parsed` and `parsed_arguments` are its own additions.
      const withoutParsed = JSON.parse(JSON.stringify(r.output, (k, v) => (k === "parsed" || k === "parsed_arguments" ? undefined : v)));
      expect(withoutParsed).toEqual(final(parseSse(body)).output);
    }
  });

  test("a custom tool call's streamed input", async () => {
    const e = responsesEcho({ model: "acme/chat-small", input: "hi", tools: [{ type: "custom", name: "apply_patch" }] });
    const stream = client(await encode(responsesStreamEncoder(e, "resp_test"), customCallEvents)).responses.stream({
      model: "m",
      input: "hi",
    });
    const deltas: string[] = [];
    stream.on("response.custom_tool_call_input.delta", (d) => deltas.push(d.delta));
    const r = await stream.finalResponse();
    expect(deltas.join("")).toBe("*** Begin Patch\n*** End Patch");
    expect(r.output[0]).toMatchObject({ type: "custom_tool_call", call_id: "call_p", input: "*** Begin Patch\n*** End Patch" });
  });
});
