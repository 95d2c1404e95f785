// The bench's three stream kinds: the mock's frames in each dialect carry the same answer, and the load
// generator's check tells a complete stream from a cut, failed or wrong one.
import { describe, expect, test } from "bun:test";
import { STREAM_CHUNKS, STREAM_TEXT, streamFramesFor } from "../../../bench/mock-upstream";
import { KINDS, STREAM_KINDS, type StreamKind } from "../../../bench/stream-kinds";

const dec = new TextDecoder();
const PATHS: Record<StreamKind, string> = { chat: "/v1/chat/completions", messages: "/v1/messages", responses: "/v1/responses" };

/** The events of the mock's stream for a kind, as text, one entry per event. */
function mockEvents(kind: StreamKind, raw = KINDS[kind].body): string[] {
  const f = streamFramesFor(PATHS[kind], "m", raw)!;
  return [...f.head, ...f.content, ...f.tail].map((b) => dec.decode(b));
}

describe.each(STREAM_KINDS)("the %s stream", (kind) => {
  const check = (events: string[]) => KINDS[kind].check(events.join(""), false);

  test("the mock's whole stream is complete, with one delta event per token of the chat stream", () => {
    expect(check(mockEvents(kind))).toBeNull();
    const f = streamFramesFor(PATHS[kind], "m", KINDS[kind].body)!;
    expect(f.content).toHaveLength(STREAM_CHUNKS);
  });

  test("a stream without its terminal event is not complete", () => {
    expect(check(mockEvents(kind).slice(0, -1))).toMatch(/^no /);
  });

  test("a stream missing a delta is a content mismatch", () => {
    const events = mockEvents(kind);
    const f = streamFramesFor(PATHS[kind], "m", KINDS[kind].body)!;
    events.splice(f.head.length + 3, 1);
    expect(check(events)).toStartWith("content mismatch");
  });

  test("an event after the terminal one fails the stream", () => {
    const events = mockEvents(kind);
    events.push(events[events.length - 2]!);
    expect(check(events)).toMatch(/after/);
  });

  test("the minimal proxy's rewrite (a field added to each event's JSON) still reads as complete", () => {
    const rewritten = mockEvents(kind).map((e) =>
      e.replace(/^data: (\{.*\})$/m, (_, json: string) => `data: ${JSON.stringify({ ...JSON.parse(json), model: "minimal/m" })}`),
    );
    expect(check(rewritten)).toBeNull();
  });
});

test("the dialects' answers are the chat stream's text", () => {
  for (const kind of STREAM_KINDS) {
    const text = mockEvents(kind).join("");
    for (let i = 0; i < STREAM_CHUNKS; i++) expect(text).toContain(`tok${i} `);
  }
  expect(STREAM_TEXT.split(" ").filter(Boolean)).toHaveLength(STREAM_CHUNKS);
});

test("an Anthropic error event mid-stream fails a Messages stream", () => {
  const events = mockEvents("messages");
  events.splice(4, 0, 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
  expect(KINDS.messages.check(events.join(""), false)).toStartWith("error event");
});

test("a Responses stream that ends in response.failed is not complete", () => {
  const events = mockEvents("responses");
  events[events.length - 1] = 'event: response.failed\ndata: {"type":"response.failed","response":{"status":"failed"}}\n\n';
  expect(KINDS.responses.check(events.join(""), false)).toStartWith("error event");
});

test("Messages usage must count the stream's tokens", () => {
  const events = mockEvents("messages").map((e) => e.replace(`"output_tokens":${STREAM_CHUNKS}`, '"output_tokens":3'));
  expect(KINDS.messages.check(events.join(""), false)).toBe(`no usage of ${STREAM_CHUNKS} output tokens`);
});

test("a chat stream needs its usage chunk, and routing_metadata where a gateway answered", () => {
  const noUsage = mockEvents("chat", KINDS.chat.body.replace('"include_usage":true', '"include_usage":false'));
  expect(KINDS.chat.check(noUsage.join(""), false)).toBe("no usage chunk");
  expect(KINDS.chat.check(mockEvents("chat").join(""), true)).toBe("no routing_metadata chunk");
});

test("each kind's request goes to its own model, and Messages presents the key as x-api-key with a version", () => {
  expect(new Set(STREAM_KINDS.map((k) => KINDS[k].model)).size).toBe(3);
  for (const k of STREAM_KINDS) expect(JSON.parse(KINDS[k].body)).toMatchObject({ model: KINDS[k].model, stream: true });
  expect(KINDS.messages.headers("sk")).toEqual({ "x-api-key": "sk", "anthropic-version": "2023-06-01" });
  expect(KINDS.responses.headers("sk")).toEqual({ authorization: "Bearer sk" });
  expect(KINDS.messages.headers(null)).toEqual({ "anthropic-version": "2023-06-01" });
});
