import { describe, expect, test } from "bun:test";
import { responsesStreamEncoder } from "../../../src/inference/responses/stream";
import { responsesEcho } from "../../../src/inference/responses/to-chat";
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

const echo = responsesEcho({ model: "acme/chat-small", input: "hi" });

async function run(events: PipelineEvent[]): Promise<{ text: string; events: SseEvent[] }> {
  const text = await encode(responsesStreamEncoder(echo, "resp_test"), events);
  return { text, events: parseSse(text) };
}

const types = (events: SseEvent[]) => events.map((e) => e.event);
const last = (events: SseEvent[]) => events[events.length - 1]!;
const TERMINALS = ["response.completed", "response.incomplete", "response.failed"];

describe("responses stream encoder", () => {
  test("a text answer streams the standard event sequence ending in response.completed", async () => {
    const { text, events } = await run(textEvents);
    expect(types(events)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(text).not.toContain("[DONE]");
    expect(text.startsWith("event: response.created\ndata: {")).toBe(true);
    // Each data payload repeats its event name as `type`.
    for (const e of events) expect(e.data.type).toBe(e.event!);
  });

  test("sequence_number counts every event from 0", async () => {
    const { events } = await run(textEvents);
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
  });

  test("deltas, done events and the terminal response carry the text, usage and routing_metadata", async () => {
    const { events } = await run(textEvents);
    const deltas = events.filter((e) => e.event === "response.output_text.delta").map((e) => e.data.delta);
    expect(deltas).toEqual(["Hello", " world"]);
    expect(events.find((e) => e.event === "response.output_text.done")!.data.text).toBe("Hello world");
    const response = last(events).data.response as Record<string, any>;
    expect(response).toMatchObject({
      id: "resp_test",
      object: "response",
      status: "completed",
      model: "chat-small-2026",
      output_text: "Hello world",
    });
    expect(response.usage.total_tokens).toBe(27);
    expect(response.routing_metadata).toEqual(routing);
    expect(response.output[0]).toMatchObject({
      type: "message",
      status: "completed",
      content: [{ type: "output_text", text: "Hello world" }],
    });
    const created = events[0]!.data.response as Record<string, any>;
    expect(created).toMatchObject({ id: "resp_test", status: "in_progress", output: [], usage: null, model: "acme/chat-small" });
  });

  test("a tool call closes the message item, then streams its arguments", async () => {
    const { events } = await run(toolEvents);
    expect(types(events)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const argsDone = events.find((e) => e.event === "response.function_call_arguments.done")!.data;
    expect(argsDone).toMatchObject({ output_index: 1, name: "get_weather", arguments: '{"city":"Paris"}' });
    const response = last(events).data.response as Record<string, any>;
    expect(response.output[1]).toMatchObject({
      type: "function_call",
      call_id: "call_1",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
      status: "completed",
    });
  });

  test("two parallel tool calls become two function_call items in order", async () => {
    const { events } = await run([
      delta({ tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "f", arguments: "{}" } }] }),
      delta({ tool_calls: [{ index: 1, id: "b", type: "function", function: { name: "g", arguments: "{}" } }] }),
      delta({}, "tool_calls"),
      done,
    ]);
    const added = events.filter((e) => e.event === "response.output_item.added").map((e) => (e.data.item as { call_id: string }).call_id);
    expect(added).toEqual(["a", "b"]);
    const output = (last(events).data.response as { output: { call_id: string; status: string }[] }).output;
    expect(output.map((o) => o.call_id)).toEqual(["a", "b"]);
  });

  test("a cut by the token limit ends in response.incomplete with reason max_output_tokens", async () => {
    const { events } = await run(lengthEvents);
    expect(last(events).event).toBe("response.incomplete");
    const response = last(events).data.response as Record<string, any>;
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(response.output[0].status).toBe("incomplete");
    expect(response.output_text).toBe("Once upon a");
    expect(types(events).filter((t) => TERMINALS.includes(t!))).toHaveLength(1);
  });

  test("a mid-stream failure ends in response.failed with the error and routing_metadata", async () => {
    const { events } = await run(midStreamFailureEvents);
    expect(types(events)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.failed",
    ]);
    const response = last(events).data.response as Record<string, any>;
    expect(response.status).toBe("failed");
    expect(response.error).toEqual({ code: "provider_error", message: "Upstream connection reset" });
    expect(response.routing_metadata).toEqual(routing);
    expect(response.output[0]).toMatchObject({ status: "incomplete", content: [{ text: "Partial" }] });
    // The failure is inside `response`, never a top-level `error` (which SDKs raise as a transport error).
    expect(last(events).data.error).toBeUndefined();
  });

  test("a stream that ends without a terminal event still gets exactly one response.failed", async () => {
    const { events } = await run(unterminatedEvents);
    expect(types(events).filter((t) => TERMINALS.includes(t!))).toEqual(["response.failed"]);
    expect((last(events).data.response as Record<string, any>).error.code).toBe("internal_error");
  });

  test("an empty stream gets created, in_progress and a failed terminal", async () => {
    const { events } = await run([]);
    expect(types(events)).toEqual(["response.created", "response.in_progress", "response.failed"]);
  });

  test("events after the terminal one are ignored", async () => {
    const { events } = await run([...textEvents, delta({ content: "late" }), done]);
    const { events: plain } = await run(textEvents);
    expect(types(events)).toEqual(types(plain));
  });
});
