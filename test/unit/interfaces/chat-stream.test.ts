import { describe, expect, test } from "bun:test";
import { chatSseTransformer, usageJson } from "../../../src/inference/chat/render";
import type { PipelineEvent } from "../../../src/inference/types";
import { SyncTransform } from "../../../src/inference/sync-transform";
import { done, failed, routing, usage, weatherCall } from "./pipeline-fixtures";

/** The SSE text the chat encoder writes for `events`, one string per data event. */
function encode(events: PipelineEvent[]): string[] {
  const enc = new SyncTransform(chatSseTransformer());
  const out: string[] = [];
  for (const ev of events) out.push(...enc.push(ev));
  out.push(...enc.end());
  return out;
}

// What JSON.stringify of the whole chunk object gives: the encoder builds the text from a per-stream
// head and the serialised choice instead, and must not differ by a byte (key order included).
function expected(id: string, model: string, choice: unknown): string {
  const chunk = { id, object: "chat.completion.chunk", created: 1_700_000_123, model, system_fingerprint: "switchyard", choices: [choice] };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

describe("chat SSE encoder", () => {
  test("delta chunks are byte for byte JSON.stringify of the chunk object, for ids and models that need escaping", () => {
    const id = 'chatcmpl-"q"\\é🌍';
    const model = "vendor/模型\u2028x";
    const at = (delta: Record<string, unknown>, finishReason: string | null, logprobs?: unknown) =>
      ({ type: "delta", id, created: 1_700_000_123, model, choiceIndex: 1, delta, finishReason, logprobs }) as PipelineEvent;
    const logprobs = { content: [{ token: "Hi", logprob: -0.1, bytes: [72, 105], top_logprobs: [] }] };
    const out = encode([
      at({ content: 'He said "hi"\n' }, null),
      at({ tool_calls: [{ index: 0, ...weatherCall }] }, null, logprobs),
      at({}, "tool_calls"),
      done,
    ]);
    expect(out.slice(0, 4)).toEqual([
      // The choice's first chunk carries the role, as OpenAI's streams do.
      expected(id, model, { index: 1, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }),
      expected(id, model, { index: 1, delta: { content: 'He said "hi"\n' }, logprobs: null, finish_reason: null }),
      expected(id, model, { index: 1, delta: { tool_calls: [{ index: 0, ...weatherCall }] }, logprobs, finish_reason: null }),
      expected(id, model, { index: 1, delta: {}, logprobs: null, finish_reason: "tool_calls" }),
    ]);
    for (const text of out.slice(0, 4)) expect(JSON.parse(text.slice("data: ".length)).id).toBe(id);
    expect(out.at(-1)).toBe("data: [DONE]\n\n");
  });

  test("a delta that came through unparsed (deltaJson) is written as the chunk its parsed form makes", () => {
    const at = (delta: Record<string, unknown>, deltaJson?: string) =>
      ({
        type: "delta",
        id: "c1",
        created: 1_700_000_123,
        model: "m",
        choiceIndex: 0,
        delta,
        finishReason: null,
        deltaJson,
      }) as PipelineEvent;
    const out = encode([at({ role: "assistant", content: "" }), at({ content: " Grüße 👋" }, '{"content":" Grüße 👋"}'), done]);
    expect(out[1]).toBe(expected("c1", "m", { index: 0, delta: { content: " Grüße 👋" }, logprobs: null, finish_reason: null }));
  });

  test("the usage and routing_metadata chunks are byte for byte JSON.stringify of a choiceless chunk with the field, with or without a delta before", () => {
    const id = 'chatcmpl-"q"\u2028é';
    const model = "vendor/模型";
    const chunk = (i: string, m: string, created: number, field: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id: i, object: "chat.completion.chunk", created, model: m, system_fingerprint: "switchyard", choices: [], ...field })}\n\n`;
    const first = {
      type: "delta",
      id,
      created: 1_700_000_123,
      model,
      choiceIndex: 0,
      delta: { content: "x" },
      finishReason: null,
    } as PipelineEvent;
    const after = encode([first, done]);
    expect(after.slice(-3)).toEqual([
      chunk(id, model, 1_700_000_123, { usage: usageJson(usage) }),
      chunk(id, model, 1_700_000_123, { routing_metadata: routing }),
      "data: [DONE]\n\n",
    ]);
    // A stream that fails before any delta has no head yet: the chunk is serialised whole (empty id and model).
    const before = encode([failed]);
    expect(before[0]).toBe(chunk("", "", 0, { routing_metadata: routing }));
    expect(JSON.parse(before[1]!.slice("data: ".length)).error.code).toBe("provider_error");
  });
});
