// A native stream's content events pass to the client as the bytes they came in (upstream-events.ts,
// native-events.ts NativeContentBytes): the full path would write them unparsed anyway; every other
// event (and any other layout) is parsed, and the stream's order holds either way.
import { describe, expect, test } from "bun:test";
import { UpstreamEvents } from "../../../src/inference/upstream-events";
import { anthropicNativeAdapter } from "../../../src/providers/anthropic/native";
import { openAIResponsesNativeAdapter } from "../../../src/providers/openai-responses/native";
import type { NativeAdapter, UpstreamTarget } from "../../../src/providers/types";
import type { BodyTap, UpstreamAnswer } from "../../../src/platform/upstream-answer";
import { UpstreamAbort } from "../../../src/platform/upstream-abort";

const target = { providerId: "p", adapter: "anthropic", baseUrl: "http://x", apiKey: null, providerModelId: "m" } as UpstreamTarget;
const encoder = new TextEncoder();
const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** A reader as the committed stream drives it: full-path events' text, and the pass-through's bytes, in one order. */
function reader(adapter: NativeAdapter) {
  let tap: BodyTap | null = null;
  const a = {
    status: 200,
    ok: true,
    headers: new Headers(),
    text: () => Promise.resolve(""),
    tap(t: BodyTap) {
      tap = t;
      return () => {};
    },
    response: () => new Response(""),
  } as unknown as UpstreamAnswer;
  const events = new UpstreamEvents(a, adapter, target, new UpstreamAbort());
  const order: string[] = [];
  const passed: string[] = [];
  events.listen(() => {
    for (let e = events.take(); e !== null && e.type === "raw"; e = events.take()) order.push(e.text);
  });
  events.passThrough((bytes, ranges, count) => {
    for (let i = 0; i < 2 * count; i += 2) {
      const text = new TextDecoder().decode(bytes.slice(ranges[i], ranges[i + 1]));
      order.push(text);
      passed.push(text);
    }
    return true;
  });
  const send = (...pieces: string[]) => {
    for (const p of pieces) {
      const bytes = encoder.encode(p);
      tap!.piece(bytes, 0, bytes.length);
    }
  };
  return { order, passed, send };
}

describe("native content events pass as bytes", () => {
  test("Anthropic: content_block_delta events go as they came, whole (event line, data, blank line); the others are parsed; the order holds", () => {
    const r = reader(anthropicNativeAdapter);
    const start = ev("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    const d1 = ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Grüße 👋" } });
    const d2 = ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "s" } });
    const stop = ev("content_block_stop", { type: "content_block_stop", index: 0 });
    r.send(start, d1, d2 + stop, d1);
    expect(r.passed).toEqual([d1, d2, d1]);
    expect(r.order).toEqual([start, d1, d2, stop, d1]);
  });

  test("Responses: response.*.delta events pass; response.completed is parsed (it is held for routing_metadata), and nothing passes after it", () => {
    const r = reader(openAIResponsesNativeAdapter);
    const delta = ev("response.output_text.delta", { type: "response.output_text.delta", sequence_number: 3, delta: "Hi" });
    const summary = ev("response.reasoning_summary_text.delta", { type: "response.reasoning_summary_text.delta", delta: "t" });
    const done = ev("response.output_text.done", { type: "response.output_text.done", text: "Hi" });
    const created = ev("response.created", { type: "response.created", response: { id: "r" } });
    // The first read is parsed (the parser must be seen between events before bytes may bypass it).
    r.send(created, delta, summary + done);
    expect(r.passed).toEqual([delta, summary]);
    expect(r.order).toEqual([created, delta, summary, done]);
    r.send(
      ev("response.completed", { type: "response.completed", response: { id: "r", usage: { input_tokens: 1, output_tokens: 1 } } }),
      delta,
    );
    expect(r.passed).toEqual([delta, summary]);
  });

  test("another layout takes the full path: CRLF line ends, a data-only event, an event split across reads", () => {
    const r = reader(anthropicNativeAdapter);
    const data = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x" } };
    const crlf = `event: content_block_delta\r\ndata: ${JSON.stringify(data)}\r\n\r\n`;
    const bare = `data: ${JSON.stringify(data)}\n\n`;
    const whole = ev("content_block_delta", data);
    r.send(crlf, bare, whole.slice(0, 20), whole.slice(20));
    expect(r.passed).toEqual([]);
    expect(r.order).toHaveLength(3);
  });
});
