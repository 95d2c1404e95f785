// Issue 55's multi-turn test at the Messages dialect: the answer's reasoning goes to the client as
// thinking blocks, the client sends them back in the next turns (as Claude Code does, block for block),
// and the chat request gets exactly the entries the provider gave, turn after turn, streamed or not.
import { describe, expect, test } from "bun:test";
import { renderMessage } from "../../../src/inference/messages/render";
import type { ReasoningDetail } from "../../../src/providers/reasoning";
import type { ToolCall } from "../../../src/providers/types";
import type { PipelineEvent } from "../../../src/inference/types";
import { chatResult, delta, done } from "./pipeline-fixtures";
import {
  claudeRedacted,
  claudeThought,
  geminiCallSignature,
  geminiThought,
  reasoningDelta,
  responsesEncrypted,
  responsesSummary,
  sdkFinalMessage,
  translate,
} from "./messages-lossless-fixtures";

type Blocks = Record<string, unknown>[];

const call = (id: string): ToolCall => ({ id, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } });

/** A JSON answer's content as the client holds it (through the wire's JSON). */
function answerBlocks(reasoning: ReasoningDetail[], id: string): Blocks {
  const message = renderMessage(chatResult({ content: null, tool_calls: [call(id)], reasoning_details: reasoning }, "tool_calls"));
  return JSON.parse(JSON.stringify(message.content)) as Blocks;
}

/** The same answer streamed: the content the Anthropic SDK accumulates. */
async function streamedBlocks(reasoning: ReasoningDetail[], id: string): Promise<Blocks> {
  const events: PipelineEvent[] = [delta({ role: "assistant" })];
  reasoning.forEach((entry, index) => {
    const { type, format } = entry;
    const base = { type, format, index, ...(entry.id !== undefined ? { id: entry.id } : {}) };
    if (entry.type === "reasoning.text") {
      events.push(reasoningDelta({ ...base, text: entry.text.slice(0, 5) }), reasoningDelta({ ...base, text: entry.text.slice(5) }));
      if (entry.signature) events.push(reasoningDelta({ ...base, signature: entry.signature }));
    } else if (entry.type === "reasoning.summary") events.push(reasoningDelta({ ...base, summary: entry.summary }));
    else events.push(reasoningDelta({ ...base, data: entry.data }));
  });
  const c = call(id);
  events.push(delta({ tool_calls: [{ index: 0, id, type: "function", function: c.function }] }), delta({}, "tool_calls"), done);
  const message = await sdkFinalMessage(events);
  return JSON.parse(JSON.stringify(message.content)) as Blocks;
}

const toolResult = (id: string) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "18C" }] });

/**
 * Three turns: answer 1 (reasoning r1) → request 2 sends it back → answer 2 (r2) → request 3 sends both;
 * each request's assistant turns hold exactly r1 and r2.
 */
async function threeTurns(
  r1: ReasoningDetail[],
  r2: ReasoningDetail[],
  blocksOf: (r: ReasoningDetail[], id: string) => Blocks | Promise<Blocks>,
) {
  const first = await blocksOf(r1, "call_1");
  const turn2 = [{ role: "user", content: "Weather in Paris?" }, { role: "assistant", content: first }, toolResult("call_1")];
  const request2 = translate({ messages: turn2 }).request;
  expect(request2.messages[1]!.reasoning_details).toEqual(r1);
  const second = await blocksOf(r2, "call_2");
  const request3 = translate({ messages: [...turn2, { role: "assistant", content: second }, toolResult("call_2")] }).request;
  const assistants = request3.messages.filter((m) => m.role === "assistant");
  expect(assistants.map((m) => m.reasoning_details)).toEqual([r1, r2]);
  expect(assistants.map((m) => m.tool_calls![0]!.id)).toEqual(["call_1", "call_2"]);
  return { first, second };
}

const gemini2: ReasoningDetail = { type: "reasoning.text", text: "Now summarise.", signature: "CiQBsecond==", format: "google-gemini-v1" };
const claude2: ReasoningDetail = { type: "reasoning.text", text: "Now summarise.", signature: "EqQBsecond", format: "anthropic-claude-v1" };

describe.each([
  ["JSON", answerBlocks],
  ["streamed", streamedBlocks],
] as const)("messages round trip over three turns (%s answers)", (_, blocksOf) => {
  test("a Gemini thought with its signature, and a function call's signature, come back exactly", async () => {
    const { first } = await threeTurns([geminiThought, geminiCallSignature], [gemini2], blocksOf);
    expect(first[0]).toMatchObject({ type: "thinking", thinking: geminiThought.text });
    expect(String(first[0]!.signature)).toStartWith("swy1.");
  });

  test("an Anthropic thinking block keeps its signature unchanged, on the wire and back", async () => {
    const { first } = await threeTurns([claudeThought], [claude2], blocksOf);
    expect(first[0]).toEqual({ type: "thinking", thinking: claudeThought.text, signature: claudeThought.signature });
  });

  test("redacted_thinking comes back as the same encrypted entry", async () => {
    const { first } = await threeTurns([claudeRedacted, claudeThought], [claudeRedacted], blocksOf);
    expect(first[0]).toEqual({ type: "redacted_thinking", data: claudeRedacted.data });
  });

  test("a Responses item's summary and encrypted content, between Anthropic entries, keep their order and id", async () => {
    await threeTurns([claudeThought, responsesSummary, responsesEncrypted, claudeRedacted], [responsesSummary], blocksOf);
  });
});
