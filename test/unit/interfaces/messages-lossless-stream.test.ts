// Issue 55 on the Messages stream: reasoning fragments become thinking / redacted_thinking blocks ahead
// of the answer, a carried run is signed at its block's end, annotations become citations_delta; the
// Anthropic SDK's accumulator (what Claude Code runs) builds the same blocks render.ts writes.
import { describe, expect, test } from "bun:test";
import { messagesStreamEncoder } from "../../../src/inference/messages/stream";
import { decodeCarried, encodeCarried } from "../../../src/providers/reasoning";
import type { PipelineEvent } from "../../../src/inference/types";
import { delta, done, encode, parseSse, type SseEvent } from "./pipeline-fixtures";
import {
  claudeRedacted,
  claudeThought,
  geminiCallSignature,
  geminiThought,
  reasoningDelta,
  sdkFinalMessage,
  streamEnd,
} from "./messages-lossless-fixtures";

const A = "anthropic-claude-v1" as const;
const G = "google-gemini-v1" as const;

async function run(events: PipelineEvent[]): Promise<SseEvent[]> {
  return parseSse(await encode(messagesStreamEncoder({ id: "msg_test", model: "acme/chat-small" }), events));
}
/** The block events only, as [event, data without its type]. */
const blocks = (events: SseEvent[]): [string | undefined, Record<string, unknown>][] =>
  events
    .filter((e) => e.event!.startsWith("content_block"))
    .map((e) => {
      const { type: _, ...rest } = e.data;
      return [e.event, rest as Record<string, unknown>];
    });

const claudeEvents: PipelineEvent[] = [
  delta({ role: "assistant" }),
  reasoningDelta({ type: "reasoning.text", format: A, index: 0, text: "Let me check " }),
  reasoningDelta({ type: "reasoning.text", format: A, index: 0, text: "the forecast." }),
  reasoningDelta({ type: "reasoning.text", format: A, index: 0, signature: claudeThought.signature! }),
  reasoningDelta({ type: "reasoning.encrypted", format: A, index: 1, data: claudeRedacted.data }),
  delta({ content: "Sunny." }),
  ...streamEnd,
];

const geminiEvents: PipelineEvent[] = [
  delta({ role: "assistant" }),
  reasoningDelta({ type: "reasoning.text", format: G, index: 0, text: "The user wants " }),
  reasoningDelta({ type: "reasoning.text", format: G, index: 0, text: "Paris weather." }),
  reasoningDelta({ type: "reasoning.text", format: G, index: 0, signature: geminiThought.signature! }),
  reasoningDelta({ type: "reasoning.encrypted", format: G, index: 1, data: geminiCallSignature.data, id: "call_1" }),
  delta({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] }),
  delta({}, "tool_calls"),
  done,
];

describe("messages stream: Anthropic reasoning", () => {
  test("a thinking block streams thinking_delta then its signature_delta; redacted_thinking is one start with its data", async () => {
    expect(blocks(await run(claudeEvents))).toEqual([
      ["content_block_start", { index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }],
      ["content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "Let me check " } }],
      ["content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "the forecast." } }],
      ["content_block_delta", { index: 0, delta: { type: "signature_delta", signature: claudeThought.signature } }],
      ["content_block_stop", { index: 0 }],
      ["content_block_start", { index: 1, content_block: { type: "redacted_thinking", data: claudeRedacted.data } }],
      ["content_block_stop", { index: 1 }],
      ["content_block_start", { index: 2, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { index: 2, delta: { type: "text_delta", text: "Sunny." } }],
      ["content_block_stop", { index: 2 }],
    ]);
  });

  test("the Anthropic SDK accumulates them into the blocks the JSON answer has", async () => {
    const m = await sdkFinalMessage(claudeEvents);
    expect(m.content).toEqual([
      { type: "thinking", thinking: claudeThought.text, signature: claudeThought.signature! },
      { type: "redacted_thinking", data: claudeRedacted.data },
      { type: "text", text: "Sunny." },
    ] as never);
  });
});

describe("messages stream: other families' reasoning is carried", () => {
  test("a Gemini run is one thinking block signed once, at its end, with the run's token", async () => {
    const events = blocks(await run(geminiEvents));
    const signed = events.filter(([, d]) => (d.delta as { type?: string } | undefined)?.type === "signature_delta");
    expect(signed).toHaveLength(1);
    // The token's JSON follows the order fields were merged in: what counts is the entries it gives back.
    const token = (signed[0]![1].delta as { signature: string }).signature;
    expect(decodeCarried(token)).toEqual([geminiThought, geminiCallSignature]);
    expect(events.slice(0, 5)).toEqual([
      ["content_block_start", { index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }],
      ["content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "The user wants " } }],
      ["content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "Paris weather." } }],
      ["content_block_delta", { index: 0, delta: { type: "signature_delta", signature: token } }],
      ["content_block_stop", { index: 0 }],
    ]);
    expect(events[5]).toEqual([
      "content_block_start",
      { index: 1, content_block: { type: "tool_use", id: "call_1", name: "get_weather", input: {} } },
    ]);
  });

  test("DeepSeek's bare reasoning_content is an unknown entry whose token round-trips", async () => {
    const m = await sdkFinalMessage([
      delta({ role: "assistant", extra: { reasoning_content: "Six times " } }),
      delta({ extra: { reasoning_content: "seven." } }),
      delta({ content: "42" }),
      ...streamEnd,
    ]);
    const thinking = m.content[0] as { type: string; thinking: string; signature: string };
    expect(thinking).toMatchObject({ type: "thinking", thinking: "Six times seven." });
    expect(decodeCarried(thinking.signature)).toEqual([{ type: "reasoning.text", text: "Six times seven.", format: "unknown" }]);
    expect(m.content[1]).toMatchObject({ type: "text", text: "42" });
  });

  test("entries of a run are joined by a blank line as reasoningText does; a following Anthropic entry gets its own block", async () => {
    const m = await sdkFinalMessage([
      reasoningDelta({ type: "reasoning.text", format: G, index: 0, text: "one" }),
      reasoningDelta({ type: "reasoning.text", format: G, index: 1, text: "two" }),
      reasoningDelta({ type: "reasoning.text", format: A, index: 2, text: "three", signature: "s3" }),
      ...streamEnd,
    ]);
    expect(m.content).toEqual([
      {
        type: "thinking",
        thinking: "one\n\ntwo",
        signature: encodeCarried([
          { type: "reasoning.text", text: "one", format: G },
          { type: "reasoning.text", text: "two", format: G },
        ]),
      },
      { type: "thinking", thinking: "three", signature: "s3" },
    ] as never);
  });

  test("a fragment after its carried block ended renews the block's token; a new late entry gets its own block", async () => {
    const sse = await run([
      reasoningDelta({ type: "reasoning.text", format: G, index: 0, text: "plan" }),
      delta({ content: "Answer" }),
      reasoningDelta({ type: "reasoning.text", format: G, index: 0, signature: "late-sig" }),
      reasoningDelta({ type: "reasoning.encrypted", format: G, index: 1, data: "text-sig" }),
      ...streamEnd,
    ]);
    const signatures = sse.filter((e) => (e.data.delta as { type?: string } | undefined)?.type === "signature_delta");
    const entry0 = { type: "reasoning.text", text: "plan", format: G } as const;
    expect(signatures.map((e) => [e.data.index, decodeCarried((e.data.delta as { signature: string }).signature)])).toEqual([
      [0, [entry0]],
      [0, [{ ...entry0, signature: "late-sig" }]],
      [2, [{ type: "reasoning.encrypted", data: "text-sig", format: G }]],
    ]);
  });
});

describe("messages stream: citations", () => {
  test("annotations become citations_delta on the text they cite, as the SDK reads them", async () => {
    const events: PipelineEvent[] = [
      delta({ role: "assistant", content: "Paris is " }),
      delta({ content: "sunny." }),
      delta({
        extra: {
          annotations: [{ type: "url_citation", url_citation: { url: "https://w.example", title: "W", start_index: 9, end_index: 14 } }],
        },
      }),
      ...streamEnd,
    ];
    const citation = { type: "web_search_result_location", url: "https://w.example", title: "W", cited_text: "sunny", encrypted_index: "" };
    expect(blocks(await run(events))).toContainEqual(["content_block_delta", { index: 0, delta: { type: "citations_delta", citation } }]);
    const m = await sdkFinalMessage(events);
    expect(m.content).toEqual([{ type: "text", text: "Paris is sunny.", citations: [citation] }] as never);
  });
});
