import { describe, expect, test } from "bun:test";
import { sseDecoder, type SseEvent } from "../../../src/providers/sse-decode";
import { bytesStream, collect } from "./stream-harness";

async function decode(pieces: (string | Uint8Array)[]): Promise<SseEvent[]> {
  return collect(bytesStream(pieces).pipeThrough(sseDecoder()));
}

const WIRE =
  ': keep-alive comment\r\nevent: message_start\r\ndata: {"a":1}\r\n\r\ndata: line one\ndata: line two\n\n: another comment\n\nid: 7\ndata: héllo 👋\r\n\r\n';
const EXPECTED: SseEvent[] = [
  { event: "message_start", data: '{"a":1}', id: undefined },
  { event: undefined, data: "line one\nline two", id: undefined },
  { event: undefined, data: "héllo 👋", id: "7" },
];

describe("sse-decode", () => {
  test("parses CRLF and LF line ends, comments and multi-line data into events", async () => {
    expect(await decode([WIRE])).toEqual(EXPECTED);
  });

  test("gives identical events for every two-piece split of the bytes, UTF-8 characters included", async () => {
    const bytes = new TextEncoder().encode(WIRE);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(await decode([bytes.slice(0, cut), bytes.slice(cut)])).toEqual(EXPECTED);
    }
  });

  test("gives identical events when every byte arrives alone", async () => {
    const bytes = new TextEncoder().encode(WIRE);
    expect(await decode(Array.from(bytes, (b) => new Uint8Array([b])))).toEqual(EXPECTED);
  });

  test("drops an unterminated trailing event (the SSE rule for a cut stream)", async () => {
    expect(await decode(["data: complete\n\ndata: cut"])).toEqual([{ event: undefined, data: "complete", id: undefined }]);
  });
});
