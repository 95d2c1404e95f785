// Reasoning, citations and streams of them in the chat model, as the adapters hand them to the Messages
// interface (issue 55), and the Anthropic SDK driven by our bytes (as Claude Code reads them).
import Anthropic from "@anthropic-ai/sdk";
import type { ReasoningDetail, ReasoningFragment } from "../../../src/providers/reasoning";
import type { ChunkDelta } from "../../../src/providers/types";
import { messagesToChat } from "../../../src/inference/messages/to-chat";
import { parseMessagesRequest } from "../../../src/inference/messages/schema";
import { messagesStreamEncoder } from "../../../src/inference/messages/stream";
import type { PipelineEvent } from "../../../src/inference/types";
import { delta, done, encode, fetchReturning } from "./pipeline-fixtures";

type Entry<T extends ReasoningDetail["type"]> = Extract<ReasoningDetail, { type: T }>;

export const geminiThought: Entry<"reasoning.text"> = {
  type: "reasoning.text",
  text: "The user wants Paris weather.",
  signature: "CiQB0e2Kb3gemini-sig==",
  format: "google-gemini-v1",
};
export const geminiCallSignature: Entry<"reasoning.encrypted"> = {
  type: "reasoning.encrypted",
  data: "CiQBgemini-call-sig==",
  id: "call_1",
  format: "google-gemini-v1",
};
export const claudeThought: Entry<"reasoning.text"> = {
  type: "reasoning.text",
  text: "Let me check the forecast.",
  signature: "EqQBCkYIBRgCKkBclaude-sig",
  format: "anthropic-claude-v1",
};
export const claudeRedacted: Entry<"reasoning.encrypted"> = {
  type: "reasoning.encrypted",
  data: "EmwKAhgBEgyredacted",
  format: "anthropic-claude-v1",
};
export const responsesSummary: Entry<"reasoning.summary"> = {
  type: "reasoning.summary",
  summary: "Planning the call.",
  id: "rs_1",
  format: "openai-responses-v1",
};
export const responsesEncrypted: Entry<"reasoning.encrypted"> = {
  type: "reasoning.encrypted",
  data: "gAAAAencrypted",
  id: "rs_1",
  format: "openai-responses-v1",
};

/** A delta carrying reasoning fragments (and, for text, DeepSeek's reasoning_content beside them, as convention 3 says). */
export function reasoningDelta(...fragments: ReasoningFragment[]): PipelineEvent {
  const text = fragments.map((f) => f.text ?? f.summary ?? "").join("");
  const extra: ChunkDelta["extra"] = { reasoning_details: fragments };
  if (text !== "") extra.reasoning_content = text;
  return delta({ extra });
}

export const SSE = { status: 200, headers: { "content-type": "text/event-stream" } };
export const JSON_OK = { status: 200, headers: { "content-type": "application/json" } };

export const anthropicClient = (fetch: typeof globalThis.fetch) =>
  new Anthropic({ apiKey: "sk-test", baseURL: "http://gateway.invalid", fetch, maxRetries: 0 });

/** The Message the Anthropic SDK's stream accumulator builds from our SSE for these events. */
export async function sdkFinalMessage(events: PipelineEvent[]): Promise<Anthropic.Message> {
  const sse = await encode(messagesStreamEncoder({ id: "msg_test", model: "acme/chat-small" }), events);
  return anthropicClient(fetchReturning(sse, SSE))
    .messages.stream({ model: "m", max_tokens: 64, messages: [{ role: "user", content: "x" }] })
    .finalMessage();
}

/** Validates and translates a Messages body as the route does. */
export function translate(body: Record<string, unknown>) {
  const parsed = parseMessagesRequest({ model: "acme/chat-small", max_tokens: 256, ...body });
  if (!parsed.ok) throw new Error(`unexpectedly invalid: ${parsed.error.message}`);
  return messagesToChat(parsed.body);
}

export const streamEnd: PipelineEvent[] = [delta({}, "stop"), done];
