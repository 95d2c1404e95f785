// Issue 55, reasoning on the Anthropic wire: thinking and redacted_thinking blocks ↔ reasoning_details,
// JSON and streamed, and back into the next request's assistant turn with their signatures untouched.
import { describe, expect, test } from "bun:test";
import { anthropicAdapter as adapter } from "../../../src/providers/anthropic/adapter";
import { mergeFragment, fragmentsOf, type ReasoningDetail } from "../../../src/providers/reasoning";
import type { ChatMessage, ChatRequest, ChatResult, StreamEvent } from "../../../src/providers/types";
import { assemble, runStream, target } from "./stream-harness";

const A = "anthropic-claude-v1" as const;
const route = target("anthropic", { maxOutputTokens: 64_000, providerModelId: "claude-sonnet-4-5-20250929" });
const sse = (data: { type: string; [k: string]: unknown }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

function build(req: Partial<ChatRequest>) {
  const built = adapter.buildRequest({ model: "m", messages: [{ role: "user", content: "Hi" }], ...req }, route);
  return { ...built, json: JSON.parse(built.body) };
}

/** An answer as Anthropic writes it: thinking (signed), redacted thinking, text, a tool call. */
const answer = {
  id: "msg_01",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [
    { type: "thinking", thinking: "The user wants Paris weather.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" },
    { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" },
    { type: "text", text: "Checking." },
    { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
  ],
  stop_reason: "tool_use",
  usage: { input_tokens: 10, output_tokens: 20 },
};

const signedEntries: ReasoningDetail[] = [
  { type: "reasoning.text", text: "The user wants Paris weather.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h", format: A },
  { type: "reasoning.encrypted", data: "EmwKAhgBEgy3va3pzix/LafPsn4a", format: A },
];

/** The choice's message as a client sends it back as the next request's assistant turn. */
function asAssistant(result: ChatResult): ChatMessage {
  const { role, content, tool_calls, reasoning_details } = result.choices[0]!.message;
  return { role, content, tool_calls, reasoning_details };
}

describe("anthropic reasoning: JSON answers", () => {
  test("thinking and redacted_thinking become reasoning_details in order, signatures kept; their text is reasoning_content", () => {
    const message = adapter.parseResponse(answer, route).choices[0]!.message;
    expect(message.reasoning_details).toEqual(signedEntries);
    expect(message.reasoning_content).toBe("The user wants Paris weather.");
    expect(message.content).toBe("Checking.");
    expect(message.tool_calls?.map((c) => c.id)).toEqual(["toolu_1"]);
  });

  test("an answer with only redacted thinking has reasoning_details but no reasoning_content", () => {
    const only = { ...answer, content: [answer.content[1], { type: "text", text: "4" }] };
    const message = adapter.parseResponse(only, route).choices[0]!.message;
    expect(message.reasoning_details).toEqual([signedEntries[1]!]);
    expect(message.reasoning_content).toBeUndefined();
  });

  test("two thinking blocks are two entries; reasoning_content joins them", () => {
    const two = { ...answer, content: [answer.content[0], { type: "thinking", thinking: "Then Oslo.", signature: "sig2" }] };
    const message = adapter.parseResponse(two, route).choices[0]!.message;
    expect(message.reasoning_details?.map((d) => (d.type === "reasoning.text" ? d.signature : ""))).toEqual([
      "EqQBCgIYAhIM1gbcDa9GJwZA2b3h",
      "sig2",
    ]);
    expect(message.reasoning_content).toBe("The user wants Paris weather.\n\nThen Oslo.");
  });
});

/** The same answer as Anthropic streams it. */
const answerStream = [
  sse({ type: "message_start", message: { id: "msg_01", model: "claude", usage: { input_tokens: 10, output_tokens: 0 } } }),
  sse({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }),
  sse({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "The user wants " } }),
  sse({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Paris weather." } }),
  sse({ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" } }),
  sse({ type: "content_block_stop", index: 0 }),
  sse({ type: "content_block_start", index: 1, content_block: { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" } }),
  sse({ type: "content_block_stop", index: 1 }),
  sse({ type: "content_block_start", index: 2, content_block: { type: "text", text: "" } }),
  sse({ type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "Checking." } }),
  sse({ type: "content_block_stop", index: 2 }),
  sse({ type: "content_block_start", index: 3, content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} } }),
  sse({ type: "content_block_delta", index: 3, delta: { type: "input_json_delta", partial_json: '{"city":"Paris"}' } }),
  sse({ type: "content_block_stop", index: 3 }),
  sse({ type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 20 } }),
  sse({ type: "message_stop" }),
];

/** What a client (or the gateway's encoders) builds from the deltas' reasoning fragments. */
function mergedDetails(events: StreamEvent[]): ReasoningDetail[] {
  const details: ReasoningDetail[] = [];
  for (const e of events) if (e.type === "delta") for (const f of fragmentsOf(e.delta.extra)) mergeFragment(details, f);
  return details;
}

describe("anthropic reasoning: streams", () => {
  test("thinking_delta, signature_delta and redacted_thinking arrive as fragments that merge into the JSON path's entries", async () => {
    const events = await runStream("anthropic", answerStream);
    expect(mergedDetails(events)).toEqual(signedEntries);
    const fragments = events.flatMap((e) => (e.type === "delta" ? fragmentsOf(e.delta.extra) : []));
    expect(fragments).toEqual([
      { type: "reasoning.text", format: A, index: 0, text: "The user wants " },
      { type: "reasoning.text", format: A, index: 0, text: "Paris weather." },
      { type: "reasoning.text", format: A, index: 0, signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" },
      { type: "reasoning.encrypted", format: A, index: 1, data: "EmwKAhgBEgy3va3pzix/LafPsn4a" },
    ]);
    const out = assemble(events);
    expect(out.content).toBe("Checking.");
    expect(out.tools).toEqual([{ id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' }]);
  });

  test("a text fragment's delta carries the same text as reasoning_content; signature and data fragments carry none", async () => {
    const events = await runStream("anthropic", answerStream);
    const withReasoning = events.flatMap((e) => (e.type === "delta" && e.delta.extra ? [e.delta.extra] : []));
    expect(withReasoning.map((x) => x.reasoning_content)).toEqual(["The user wants ", "Paris weather.", undefined, undefined]);
    // All reasoning comes before the answer's text, as Anthropic ordered it.
    const kinds = events.flatMap((e) => (e.type !== "delta" ? [] : e.delta.extra ? ["r"] : e.delta.content ? ["c"] : []));
    expect(kinds.join("")).toBe("rrrrc");
  });
});

describe("anthropic reasoning: requests", () => {
  const call = { id: "toolu_1", type: "function" as const, function: { name: "get_weather", arguments: '{"city":"Paris"}' } };
  const tools: ChatRequest["tools"] = [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }];

  test("an assistant message's Anthropic entries open its turn as thinking / redacted_thinking blocks, exactly as they came", () => {
    const { json } = build({
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: "Checking.", tool_calls: [call], reasoning_details: signedEntries },
        { role: "tool", tool_call_id: "toolu_1", content: "18C" },
      ],
    });
    expect(json.messages[1].content).toEqual([
      { type: "thinking", thinking: "The user wants Paris weather.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" },
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" },
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
    ]);
  });

  test("other families' entries and unsigned thinking are dropped silently", () => {
    const { json, warnings } = build({
      messages: [
        { role: "user", content: "Q" },
        {
          role: "assistant",
          content: "A",
          reasoning_details: [
            { type: "reasoning.summary", summary: "plan", id: "rs_1", format: "openai-responses-v1" },
            { type: "reasoning.encrypted", data: "gAAAA", id: "rs_1", format: "openai-responses-v1" },
            { type: "reasoning.text", text: "thought", signature: "g-sig", format: "google-gemini-v1" },
            { type: "reasoning.text", text: "client text", format: "unknown" },
            { type: "reasoning.text", text: "lost its signature", format: A },
          ],
        },
        { role: "user", content: "Q2" },
      ],
    });
    expect(json.messages[1].content).toEqual([{ type: "text", text: "A" }]);
    expect(warnings).toEqual([]);
  });

  test("thinking on, continuing tool calls that carry no Anthropic thinking: sent without thinking, with a warning", () => {
    const { json, warnings } = build({
      reasoning_effort: "medium",
      max_tokens: 500,
      tools,
      messages: [
        { role: "user", content: "Weather?" },
        // From another provider: its reasoning is not Anthropic's.
        {
          role: "assistant",
          content: null,
          tool_calls: [call],
          reasoning_details: [{ type: "reasoning.text", text: "hm", format: "openai-responses-v1", id: "rs_1" }],
        },
        { role: "tool", tool_call_id: "toolu_1", content: "18C" },
      ],
    });
    expect(json.thinking).toBeUndefined();
    expect(json.max_tokens).toBe(500);
    expect(warnings.map((w) => [w.type, w.code])).toEqual([["unsupported_parameter", "reasoning_effort"]]);
    expect(warnings[0]!.message).toContain("without thinking");
  });

  test("thinking stays on when the loop's first assistant turn starts with thinking, later turns of the loop having none", () => {
    const second = { ...call, id: "toolu_2" };
    const { json, warnings } = build({
      reasoning_effort: "medium",
      tools,
      messages: [
        { role: "user", content: "Old question" },
        { role: "assistant", content: null, tool_calls: [{ ...call, id: "toolu_0" }] }, // an earlier loop, finished
        { role: "tool", tool_call_id: "toolu_0", content: "old" },
        { role: "assistant", content: "Old answer" },
        { role: "user", content: "Weather?" },
        { role: "assistant", content: null, tool_calls: [call], reasoning_details: signedEntries },
        { role: "tool", tool_call_id: "toolu_1", content: "18C" },
        { role: "assistant", content: null, tool_calls: [second] }, // no interleaved thinking: Anthropic's own shape
        { role: "tool", tool_call_id: "toolu_2", content: "4C" },
      ],
    });
    expect(json.thinking).toEqual({ type: "enabled", budget_tokens: 8_192 });
    expect(warnings).toEqual([]);
  });

  test("a new user question after another provider's tool calls needs no thinking from them", () => {
    const { json, warnings } = build({
      reasoning_effort: "low",
      tools,
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: "toolu_1", content: "18C" },
        { role: "assistant", content: "18C in Paris." },
        { role: "user", content: "Thanks. And a poem?" },
      ],
    });
    expect(json.thinking).toEqual({ type: "enabled", budget_tokens: 1_024 });
    expect(warnings).toEqual([]);
  });

  test("thinking off: a final assistant turn (a prefill) loses its thinking blocks, which Anthropic would refuse there", () => {
    const { json } = build({
      messages: [
        { role: "user", content: "Q" },
        { role: "assistant", content: "A", reasoning_details: signedEntries },
        { role: "user", content: "Q2" },
        { role: "assistant", content: "Well,", reasoning_details: signedEntries },
      ],
    });
    expect(json.messages[1].content[0].type).toBe("thinking"); // earlier turns keep theirs
    expect(json.messages[3].content).toEqual([{ type: "text", text: "Well," }]);
  });
});

describe("anthropic reasoning: a signature survives three turns at the adapter", () => {
  const tools: ChatRequest["tools"] = [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }];
  const second = {
    ...answer,
    id: "msg_02",
    content: [
      { type: "text", text: "Also Oslo." },
      { type: "tool_use", id: "toolu_2", name: "get_weather", input: { city: "Oslo" } },
    ],
  };

  function threeTurns(first: ChatMessage) {
    // Turn 2: the first answer goes back with its result; thinking on.
    const turn2: ChatMessage[] = [
      { role: "user", content: "Weather in Paris and Oslo?" },
      first,
      { role: "tool", tool_call_id: "toolu_1", content: "18C" },
    ];
    const body2 = build({ reasoning_effort: "medium", tools, messages: turn2 });
    // Turn 3: the second answer (no thinking of its own, as Anthropic answers mid-loop) goes back too.
    const next = asAssistant(adapter.parseResponse(second, route));
    const body3 = build({
      reasoning_effort: "medium",
      tools,
      messages: [...turn2, next, { role: "tool", tool_call_id: "toolu_2", content: "4C" }],
    });
    return { body2, body3 };
  }

  const expected = [
    { type: "thinking", thinking: "The user wants Paris weather.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" },
    { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" },
    { type: "text", text: "Checking." },
    { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
  ];

  test("from a JSON answer", () => {
    const { body2, body3 } = threeTurns(asAssistant(adapter.parseResponse(answer, route)));
    for (const body of [body2, body3]) {
      expect(body.json.thinking).toEqual({ type: "enabled", budget_tokens: 8_192 });
      expect(body.json.messages[1].content).toEqual(expected);
      expect(body.warnings).toEqual([]);
    }
    expect(body3.json.messages[3].content.map((b: { type: string }) => b.type)).toEqual(["text", "tool_use"]);
  });

  test("from a streamed answer, its fragments merged as a client merges them", async () => {
    const events = await runStream("anthropic", answerStream);
    const out = assemble(events);
    const first: ChatMessage = {
      role: "assistant",
      content: out.content,
      tool_calls: out.tools.map((t) => ({ id: t.id!, type: "function", function: { name: t.name!, arguments: t.arguments } })),
      reasoning_details: mergedDetails(events),
    };
    const { body2, body3 } = threeTurns(first);
    expect(body2.json.messages[1].content).toEqual(expected);
    expect(body3.json.messages[1].content).toEqual(expected);
  });
});
