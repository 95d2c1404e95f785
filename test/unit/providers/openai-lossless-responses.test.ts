// Issue 55 on the OpenAI Responses wire: reasoning items (summary, reasoning text, encrypted_content),
// include and reasoning.summary, citations and usage survive the translation both ways, streamed and not,
// and a conversation's reasoning comes back to the provider exactly as it came over three turns.
import { describe, expect, test } from "bun:test";
import { openAIResponsesAdapter as adapter } from "../../../src/providers/openai-responses/adapter";
import { openAICompatibleAdapter } from "../../../src/providers/openai-compatible/adapter";
import { fragmentsOf, mergeFragment, type ReasoningDetail } from "../../../src/providers/reasoning";
import { HINTS, type ChatMessage, type ChatRequest, type StreamEvent, type ToolCall } from "../../../src/providers/types";
import { bytesStream, collect, target } from "./stream-harness";

const T = target("openai");
const F = "openai-responses-v1";
const base: ChatRequest = { model: "openai/gpt-5.5-pro", messages: [{ role: "user", content: "Weather in Paris?" }] };
const bodyOf = (req: ChatRequest) => JSON.parse(adapter.buildRequest(req, T).body);
type WireEvent = { type: string; [field: string]: unknown };
const frame = (payload: WireEvent) => `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;
const run = (payloads: WireEvent[]): Promise<StreamEvent[]> =>
  collect(bytesStream(payloads.map(frame)).pipeThrough(adapter.streamTransform(T)));
const summaryDelta = (item_id: string, summary_index: number, delta: string): WireEvent => ({
  type: "response.reasoning_summary_text.delta",
  item_id,
  output_index: 0,
  summary_index,
  delta,
});
const deltas = (events: StreamEvent[]) => events.filter((e): e is Extract<StreamEvent, { type: "delta" }> => e.type === "delta");

/** A client's reassembly of a streamed answer into the assistant message it sends back next turn. */
function messageOf(events: StreamEvent[]): ChatMessage {
  const details: ReasoningDetail[] = [];
  const calls: ToolCall[] = [];
  let content = "";
  for (const e of deltas(events)) {
    for (const f of fragmentsOf(e.delta.extra)) mergeFragment(details, f);
    content += e.delta.content ?? "";
    for (const c of e.delta.tool_calls ?? []) {
      const call = (calls[c.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
      if (c.id) call.id = c.id;
      if (c.function?.name) call.function.name = c.function.name;
      call.function.arguments += c.function?.arguments ?? "";
    }
  }
  return { role: "assistant", content: content || null, tool_calls: calls, reasoning_details: details };
}

const ENC_1 = "gAAAAABpF-first-turn-state==";
const ENC_2 = "gAAAAABpF-second-turn-state==";
const turnOneJson = {
  id: "resp_1",
  object: "response",
  created_at: 1761234567,
  status: "completed",
  model: "gpt-5.5-pro-2026-04-23",
  output: [
    {
      id: "rs_1",
      type: "reasoning",
      encrypted_content: ENC_1,
      summary: [
        { type: "summary_text", text: "**Checking the weather**\n\nI need a tool." },
        { type: "summary_text", text: "**Calling it**" },
      ],
    },
    { id: "fc_1", type: "function_call", status: "completed", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
  ],
  usage: {
    input_tokens: 300,
    input_tokens_details: { cached_tokens: 256 },
    output_tokens: 120,
    output_tokens_details: { reasoning_tokens: 96 },
    total_tokens: 420,
  },
};

const turnTwoEvents = [
  { type: "response.created", response: { id: "resp_2", created_at: 1761234600, model: "gpt-5.5-pro-2026-04-23", status: "in_progress" } },
  { type: "response.output_item.added", output_index: 0, item: { id: "rs_2", type: "reasoning", summary: [] } },
  {
    type: "response.reasoning_summary_part.added",
    item_id: "rs_2",
    output_index: 0,
    summary_index: 0,
    part: { type: "summary_text", text: "" },
  },
  summaryDelta("rs_2", 0, "**Sunny;** "),
  summaryDelta("rs_2", 0, "one more city."),
  {
    type: "response.output_item.done",
    output_index: 0,
    item: {
      id: "rs_2",
      type: "reasoning",
      encrypted_content: ENC_2,
      summary: [{ type: "summary_text", text: "**Sunny;** one more city." }],
    },
  },
  {
    type: "response.output_item.added",
    output_index: 1,
    item: { id: "fc_2", type: "function_call", status: "in_progress", call_id: "call_2", name: "get_weather", arguments: "" },
  },
  { type: "response.function_call_arguments.delta", item_id: "fc_2", output_index: 1, delta: '{"city":"Lyon"}' },
  {
    type: "response.output_item.done",
    output_index: 1,
    item: { id: "fc_2", type: "function_call", status: "completed", call_id: "call_2", name: "get_weather", arguments: '{"city":"Lyon"}' },
  },
  { type: "response.completed", response: { id: "resp_2", status: "completed", usage: { input_tokens: 500, output_tokens: 80 } } },
];

describe("openai-responses lossless: request", () => {
  test("include always asks for the encrypted reasoning (store is false), merged with the client's include", () => {
    expect(bodyOf(base).include).toEqual(["reasoning.encrypted_content"]);
    const hinted: ChatRequest = { ...base, [HINTS]: { include: ["web_search_call.action.sources", "reasoning.encrypted_content"] } };
    expect(bodyOf(hinted)).toMatchObject({ store: false, include: ["reasoning.encrypted_content", "web_search_call.action.sources"] });
  });

  test("reasoning.summary from the client's hint, with or without an effort", () => {
    expect(bodyOf({ ...base, [HINTS]: { reasoningSummary: "detailed" } }).reasoning).toEqual({ summary: "detailed" });
    expect(bodyOf({ ...base, reasoning_effort: "high", [HINTS]: { reasoningSummary: "auto" } }).reasoning).toEqual({
      effort: "high",
      summary: "auto",
    });
    expect(bodyOf(base).reasoning).toBeUndefined();
  });

  test("an assistant's own-family entries become its reasoning items, grouped by id, before its output; others are dropped", () => {
    const assistant: ChatMessage = {
      role: "assistant",
      content: "Let me check.",
      tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }],
      reasoning_details: [
        { type: "reasoning.text", text: "Claude thinks", signature: "sig", format: "anthropic-claude-v1" },
        { type: "reasoning.summary", summary: "S1", id: "rs_a", format: F },
        { type: "reasoning.summary", summary: "S2", id: "rs_a", format: F },
        { type: "reasoning.encrypted", data: "ENC_A", id: "rs_a", format: F },
        { type: "reasoning.encrypted", data: "gemini-sig", id: "call_1", format: "google-gemini-v1" },
        { type: "reasoning.text", text: "raw thought", id: "rs_b", format: F },
        { type: "reasoning.encrypted", data: "ENC_B", id: "rs_b", format: F },
      ],
    };
    const body = bodyOf({ ...base, messages: [...base.messages, assistant, { role: "tool", tool_call_id: "call_1", content: "ok" }] });
    expect(body.input.slice(1)).toEqual([
      {
        type: "reasoning",
        id: "rs_a",
        summary: [
          { type: "summary_text", text: "S1" },
          { type: "summary_text", text: "S2" },
        ],
        encrypted_content: "ENC_A",
      },
      {
        type: "reasoning",
        id: "rs_b",
        summary: [],
        content: [{ type: "reasoning_text", text: "raw thought" }],
        encrypted_content: "ENC_B",
      },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Let me check." }] },
      { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "call_1", output: "ok" },
    ]);
  });

  test("an item with only an id and a summary is left out: with store false the provider could not resolve it", () => {
    const assistant: ChatMessage = {
      role: "assistant",
      content: "Hi",
      reasoning_details: [
        { type: "reasoning.summary", summary: "", id: "rs_empty", format: F },
        { type: "reasoning.summary", summary: "only a summary", id: "rs_sum", format: F },
      ],
    };
    const body = bodyOf({ ...base, messages: [...base.messages, assistant] });
    expect(body.input.slice(1)).toEqual([{ type: "message", role: "assistant", content: [{ type: "output_text", text: "Hi" }] }]);
  });

  test("honesty: n > 1, stop, seed, logprobs and penalties are dropped with a warning; prompt_cache_key reaches both wires", () => {
    const req: ChatRequest = {
      ...base,
      n: 2,
      stop: ["\n"],
      seed: 7,
      logprobs: true,
      top_logprobs: 2,
      presence_penalty: 0.5,
      prompt_cache_key: "k1",
    };
    const built = adapter.buildRequest(req, T);
    expect(built.warnings.map((w) => [w.type, w.code])).toEqual(
      ["n", "stop", "seed", "logprobs", "top_logprobs", "presence_penalty"].map((code) => ["unsupported_parameter", code]),
    );
    const body = JSON.parse(built.body);
    for (const field of ["n", "stop", "seed", "logprobs", "top_logprobs", "presence_penalty"]) expect(body[field]).toBeUndefined();
    expect(body.prompt_cache_key).toBe("k1");
    expect(JSON.parse(openAICompatibleAdapter.buildRequest({ ...base, prompt_cache_key: "k1" }, T).body).prompt_cache_key).toBe("k1");
    // Defaults say nothing, so they are not worth a warning.
    expect(adapter.buildRequest({ ...base, n: 1, logprobs: false }, T).warnings).toEqual([]);
  });
});

describe("openai-responses lossless: JSON answers", () => {
  test("a reasoning item's summary parts, reasoning text and encrypted_content become entries sharing its id", () => {
    const json = {
      ...turnOneJson,
      output: [
        {
          id: "rs_x",
          type: "reasoning",
          summary: [{ type: "summary_text", text: "Sum" }],
          content: [{ type: "reasoning_text", text: "Raw" }],
          encrypted_content: "E",
        },
        { id: "msg_1", type: "message", role: "assistant", content: [{ type: "output_text", text: "Done", annotations: [] }] },
      ],
    };
    const message = adapter.parseResponse(json, T).choices[0].message;
    expect(message.reasoning_details).toEqual([
      { type: "reasoning.summary", summary: "Sum", id: "rs_x", format: F },
      { type: "reasoning.text", text: "Raw", id: "rs_x", format: F },
      { type: "reasoning.encrypted", data: "E", id: "rs_x", format: F },
    ]);
    expect(message.reasoning_content).toBe("Sum\n\nRaw");
    expect(message.content).toBe("Done");
    expect(message.annotations).toBeUndefined();
  });

  test("url_citation takes chat's nested shape, its indices counted from the start of the whole content; other kinds stay", () => {
    const json = {
      id: "resp_c",
      status: "completed",
      output: [
        {
          id: "msg_1",
          type: "message",
          role: "assistant",
          content: [
            { type: "output_text", text: "Paris is sunny. ", annotations: [] },
            {
              type: "output_text",
              text: "Lyon too.",
              annotations: [
                { type: "url_citation", url: "https://w.example/lyon", title: "Lyon", start_index: 0, end_index: 9 },
                { type: "file_citation", file_id: "file_1", filename: "notes.pdf", index: 4 },
              ],
            },
          ],
        },
      ],
    };
    const message = adapter.parseResponse(json, T).choices[0].message;
    expect(message.content).toBe("Paris is sunny. Lyon too.");
    expect(message.annotations).toEqual([
      { type: "url_citation", url_citation: { url: "https://w.example/lyon", title: "Lyon", start_index: 16, end_index: 25 } },
      { type: "file_citation", file_id: "file_1", filename: "notes.pdf", index: 4 },
    ]);
  });

  test("usage: cached input tokens and reasoning tokens", () => {
    expect(adapter.parseResponse(turnOneJson, T).usage).toEqual({
      inputTokens: 300,
      outputTokens: 120,
      cachedTokens: 256,
      cacheWriteTokens: 0,
      reasoningTokens: 96,
    });
  });
});

describe("openai-responses lossless: streams", () => {
  test("summary and reasoning_text deltas are fragments with the item's id and reasoning_content; done brings encrypted_content", async () => {
    const events = await run([
      { type: "response.output_item.added", output_index: 0, item: { id: "rs_s", type: "reasoning", summary: [] } },
      summaryDelta("rs_s", 0, "A"),
      summaryDelta("rs_s", 1, "B"),
      { type: "response.reasoning_text.delta", item_id: "rs_s", output_index: 0, content_index: 0, delta: "raw" },
      {
        type: "response.output_item.done",
        output_index: 0,
        item: {
          id: "rs_s",
          type: "reasoning",
          summary: [
            { type: "summary_text", text: "A" },
            { type: "summary_text", text: "B" },
          ],
          content: [{ type: "reasoning_text", text: "raw" }],
          encrypted_content: "ENC",
        },
      },
      { type: "response.output_text.delta", item_id: "msg_1", output_index: 1, content_index: 0, delta: "Hi" },
      { type: "response.completed", response: { status: "completed" } },
    ]);
    expect(deltas(events).map((e) => e.delta)).toEqual([
      {
        extra: {
          reasoning_details: [{ type: "reasoning.summary", summary: "A", format: F, index: 0, id: "rs_s" }],
          reasoning_content: "A",
        },
      },
      {
        extra: {
          reasoning_details: [{ type: "reasoning.summary", summary: "B", format: F, index: 1, id: "rs_s" }],
          reasoning_content: "B",
        },
      },
      {
        extra: { reasoning_details: [{ type: "reasoning.text", text: "raw", format: F, index: 2, id: "rs_s" }], reasoning_content: "raw" },
      },
      { extra: { reasoning_details: [{ type: "reasoning.encrypted", data: "ENC", format: F, index: 3, id: "rs_s" }] } },
      { content: "Hi" },
      {},
    ]);
  });

  test("a reasoning item sent whole in output_item.done gives the same entries as the JSON answer", async () => {
    const item = turnOneJson.output[0]!;
    const events = await run([
      { type: "response.output_item.done", output_index: 0, item },
      { type: "response.completed", response: { status: "completed" } },
    ]);
    const streamed = messageOf(events).reasoning_details;
    expect(streamed).toEqual(adapter.parseResponse({ ...turnOneJson, output: [item] }, T).choices[0].message.reasoning_details!);
  });

  test("an output_text annotation becomes extra.annotations in chat's shape, offset by the text before its part", async () => {
    const events = await run([
      { type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: "Sunny. " },
      { type: "response.output_text.delta", item_id: "msg_2", output_index: 1, content_index: 0, delta: "Source" },
      {
        type: "response.output_text.annotation.added",
        item_id: "msg_2",
        output_index: 1,
        content_index: 0,
        annotation_index: 0,
        annotation: { type: "url_citation", url: "https://w.example", title: "W", start_index: 0, end_index: 6 },
      },
      { type: "response.completed", response: { status: "completed" } },
    ]);
    expect(deltas(events)[2].delta).toEqual({
      extra: {
        annotations: [{ type: "url_citation", url_citation: { url: "https://w.example", title: "W", start_index: 7, end_index: 13 } }],
      },
    });
  });
});

describe("openai-responses lossless: three turns keep the reasoning state", () => {
  test("a reasoning item (summary + encrypted_content) and a function call come back before the call, turn after turn", async () => {
    // Turn 1: a JSON answer with a reasoning item and a function call.
    const first = adapter.parseResponse(turnOneJson, T).choices[0].message;
    expect(first.tool_calls?.[0]?.id).toBe("call_1");
    const turn2: ChatRequest = {
      ...base,
      stream: true,
      messages: [...base.messages, { ...first }, { role: "tool", tool_call_id: "call_1", content: "18°C, sunny" }],
    };
    const rs1 = {
      type: "reasoning",
      id: "rs_1",
      summary: turnOneJson.output[0]!.summary,
      encrypted_content: ENC_1,
    };
    const call1 = { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' };
    const output1 = { type: "function_call_output", call_id: "call_1", output: "18°C, sunny" };
    expect(bodyOf(turn2).input.slice(1)).toEqual([rs1, call1, output1]);

    // Turn 2: streamed, another reasoning item and call; the client reassembles the message.
    const second = messageOf(await run(turnTwoEvents));
    const turn3: ChatRequest = {
      ...turn2,
      messages: [...turn2.messages, second, { role: "tool", tool_call_id: "call_2", content: "21°C" }],
    };
    const rs2 = {
      type: "reasoning",
      id: "rs_2",
      summary: [{ type: "summary_text", text: "**Sunny;** one more city." }],
      encrypted_content: ENC_2,
    };
    const call2 = { type: "function_call", call_id: "call_2", name: "get_weather", arguments: '{"city":"Lyon"}' };
    expect(bodyOf(turn3).input.slice(1)).toEqual([
      rs1,
      call1,
      output1,
      rs2,
      call2,
      { type: "function_call_output", call_id: "call_2", output: "21°C" },
    ]);
    expect(bodyOf(turn3).include).toEqual(["reasoning.encrypted_content"]);
  });
});
