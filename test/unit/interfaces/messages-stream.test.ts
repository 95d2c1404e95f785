import { describe, expect, test } from "bun:test";
import { messagesStreamEncoder } from "../../../src/inference/messages/stream";
import type { PipelineEvent } from "../../../src/inference/types";
import {
  delta,
  done,
  encode,
  lengthEvents,
  midStreamFailureEvents,
  parseSse,
  routing,
  textEvents,
  toolEvents,
  unterminatedEvents,
  type SseEvent,
} from "./pipeline-fixtures";

async function run(events: PipelineEvent[]): Promise<SseEvent[]> {
  return parseSse(await encode(messagesStreamEncoder({ id: "msg_test", model: "acme/chat-small" }), events));
}

const types = (events: SseEvent[]) => events.map((e) => e.event);
const last = (events: SseEvent[]) => events[events.length - 1]!;

describe("messages stream encoder", () => {
  test("a text answer streams message_start … message_stop with one text block", async () => {
    const events = await run(textEvents);
    expect(types(events)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    for (const e of events) expect(e.data.type).toBe(e.event!);
    expect(events[0]!.data.message).toMatchObject({
      id: "msg_test",
      type: "message",
      role: "assistant",
      model: "chat-small-2026",
      content: [],
      stop_reason: null,
    });
    expect(events[2]!.data).toEqual({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    expect(events[3]!.data).toEqual({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } });
  });

  test("message_delta carries stop_reason, the final usage and routing_metadata", async () => {
    const events = await run(textEvents);
    const md = events.find((e) => e.event === "message_delta")!.data;
    expect(md).toEqual({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { input_tokens: 12, output_tokens: 7, cache_creation_input_tokens: 3, cache_read_input_tokens: 5 },
      routing_metadata: routing,
    });
  });

  test("a tool call is a tool_use block fed by input_json_delta", async () => {
    const events = await run(toolEvents);
    expect(types(events)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events[5]!.data).toEqual({
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "call_1", name: "get_weather", input: {} },
    });
    const json = events
      .filter((e) => (e.data.delta as { type?: string } | undefined)?.type === "input_json_delta")
      .map((e) => (e.data.delta as { partial_json: string }).partial_json);
    expect(json.join("")).toBe('{"city":"Paris"}');
    expect((events.find((e) => e.event === "message_delta")!.data.delta as { stop_reason: string }).stop_reason).toBe("tool_use");
  });

  test("a cut by the token limit ends with stop_reason max_tokens", async () => {
    const events = await run(lengthEvents);
    expect(types(events).slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect((events.find((e) => e.event === "message_delta")!.data.delta as { stop_reason: string }).stop_reason).toBe("max_tokens");
  });

  test("a mid-stream failure ends with one Anthropic error event and no message_stop", async () => {
    const events = await run(midStreamFailureEvents);
    expect(types(events)).toEqual(["message_start", "ping", "content_block_start", "content_block_delta", "error"]);
    expect(last(events).data).toEqual({ type: "error", error: { type: "api_error", message: "Upstream connection reset" } });
  });

  test("a stream that ends without a terminal event ends with an error event", async () => {
    const events = await run(unterminatedEvents);
    expect(last(events).event).toBe("error");
    expect(types(events)).not.toContain("message_stop");
  });

  test("a failure before any delta is only the error event", async () => {
    const events = await run([
      {
        type: "failed",
        error: { message: "No route", type: "upstream_error", param: null, code: "no_provider_available", doc_url: "", retryable: true },
      },
    ]);
    expect(events).toEqual([{ event: "error", data: { type: "error", error: { type: "overloaded_error", message: "No route" } } }]);
  });

  test("an empty answer still gets message_start, message_delta and message_stop", async () => {
    const events = await run([delta({}, "stop"), done]);
    expect(types(events)).toEqual(["message_start", "ping", "message_delta", "message_stop"]);
  });

  test("events after the terminal one are ignored", async () => {
    expect(types(await run([...textEvents, delta({ content: "late" }), done]))).toEqual(types(await run(textEvents)));
  });
});
