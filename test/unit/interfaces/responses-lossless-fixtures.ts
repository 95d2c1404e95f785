// Reasoning, citations and custom-tool fixtures for the Responses dialect's lossless tests: chat-model
// answers (as the pipeline hands them over) and the stream deltas that carry the same answers
// (issue 55 conventions 1–3 and 8), plus helpers to compare a stream's final response with the JSON one.
import type { ReasoningDetail } from "../../../src/providers/reasoning";
import type { PipelineEvent } from "../../../src/inference/types";
import type { ResponseObject } from "../../../src/inference/responses/render";
import { delta, done } from "./pipeline-fixtures";

/** Claude's thinking with its signature, then a redacted block. */
export const anthropicDetails: ReasoningDetail[] = [
  { type: "reasoning.text", text: "The user wants Paris weather.", signature: "EqQBCkgIARABGAIiQ0sig==", format: "anthropic-claude-v1" },
  { type: "reasoning.encrypted", data: "RXJlZGFjdGVk", format: "anthropic-claude-v1" },
];

/** Two Responses reasoning items: one with two summary parts and encrypted state, one with reasoning text. */
export const responsesDetails: ReasoningDetail[] = [
  { type: "reasoning.summary", summary: "**Planning**\n\nLook up the weather.", id: "rs_aaa", format: "openai-responses-v1" },
  { type: "reasoning.summary", summary: "**Choosing the tool**", id: "rs_aaa", format: "openai-responses-v1" },
  { type: "reasoning.encrypted", data: "gAAAAABencrypted==", id: "rs_aaa", format: "openai-responses-v1" },
  { type: "reasoning.text", text: "raw chain of thought", id: "rs_bbb", format: "openai-responses-v1" },
];

/** Gemini's thought with its signature and a call's signature (id = the call). */
export const geminiDetails: ReasoningDetail[] = [
  { type: "reasoning.text", text: "Thinking about Paris.", signature: "c2lnLXRob3VnaHQ=", format: "google-gemini-v1" },
  { type: "reasoning.encrypted", data: "c2lnLWNhbGw=", id: "call_1", format: "google-gemini-v1" },
];

export const citation = {
  type: "url_citation",
  url_citation: { url: "https://example.com/paris", title: "Paris weather", start_index: 0, end_index: 12 },
};

/** An Anthropic answer as stream deltas: thinking text in two fragments, its signature, a redacted block, then text. */
export const anthropicReasoningEvents: PipelineEvent[] = [
  delta({ role: "assistant", content: "" }),
  delta({
    extra: {
      reasoning_details: [{ type: "reasoning.text", format: "anthropic-claude-v1", index: 0, text: "The user wants " }],
      reasoning_content: "The user wants ",
    },
  }),
  delta({
    extra: {
      reasoning_details: [{ type: "reasoning.text", format: "anthropic-claude-v1", index: 0, text: "Paris weather." }],
      reasoning_content: "Paris weather.",
    },
  }),
  delta({
    extra: {
      reasoning_details: [{ type: "reasoning.text", format: "anthropic-claude-v1", index: 0, signature: "EqQBCkgIARABGAIiQ0sig==" }],
    },
  }),
  delta({ extra: { reasoning_details: [{ type: "reasoning.encrypted", format: "anthropic-claude-v1", index: 1, data: "RXJlZGFjdGVk" }] } }),
  delta({ content: "Sunny, " }),
  delta({ content: "18C." }),
  delta({}, "stop"),
  done,
];

/** The Responses items above as stream deltas, then a function call. */
export const responsesReasoningEvents: PipelineEvent[] = [
  delta({ role: "assistant", content: "" }),
  delta({
    extra: {
      reasoning_details: [{ type: "reasoning.summary", format: "openai-responses-v1", index: 0, id: "rs_aaa", summary: "**Planning**" }],
    },
  }),
  delta({
    extra: {
      reasoning_details: [{ type: "reasoning.summary", format: "openai-responses-v1", index: 0, summary: "\n\nLook up the weather." }],
    },
  }),
  delta({
    extra: {
      reasoning_details: [
        { type: "reasoning.summary", format: "openai-responses-v1", index: 1, id: "rs_aaa", summary: "**Choosing the tool**" },
      ],
    },
  }),
  delta({
    extra: {
      reasoning_details: [
        { type: "reasoning.encrypted", format: "openai-responses-v1", index: 2, id: "rs_aaa", data: "gAAAAABencrypted==" },
      ],
    },
  }),
  delta({
    extra: {
      reasoning_details: [{ type: "reasoning.text", format: "openai-responses-v1", index: 3, id: "rs_bbb", text: "raw chain of thought" }],
    },
  }),
  delta({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] }),
  delta({}, "tool_calls"),
  done,
];

/** DeepSeek-style reasoning: only `reasoning_content`, no fragments. */
export const reasoningContentEvents: PipelineEvent[] = [
  delta({ role: "assistant", content: "" }),
  delta({ extra: { reasoning_content: "Hmm, " } }),
  delta({ extra: { reasoning_content: "two plus two." } }),
  delta({ content: "4" }),
  delta({}, "stop"),
  done,
];

/** Text with a citation arriving with it. */
export const citationEvents: PipelineEvent[] = [
  delta({ role: "assistant", content: "" }),
  delta({ content: "Paris weather", extra: { annotations: [citation] } }),
  delta({ content: " is mild." }),
  delta({}, "stop"),
  done,
];

/** A call to a custom tool: the function arguments `{"input": "…"}` in pieces, an escape cut between two. */
export const customCallEvents: PipelineEvent[] = [
  delta({ role: "assistant", content: "" }),
  delta({ tool_calls: [{ index: 0, id: "call_p", type: "function", function: { name: "apply_patch", arguments: "" } }] }),
  delta({ tool_calls: [{ index: 0, function: { arguments: '{"input": "*** Begin Patch' } }] }),
  delta({ tool_calls: [{ index: 0, function: { arguments: "\\" } }] }),
  delta({ tool_calls: [{ index: 0, function: { arguments: 'n*** End Patch"}' } }] }),
  delta({}, "tool_calls"),
  done,
];

/** A response without what differs between two renderings of one answer (item ids, creation and completion times). */
export function comparable(response: ResponseObject): unknown {
  const { completed_at: _completed, created_at: _created, ...rest } = response;
  return { ...rest, output: rest.output.map((item) => ({ ...item, id: item.id.replace(/_[A-Za-z0-9]{24}$/, "_<random>") })) };
}
