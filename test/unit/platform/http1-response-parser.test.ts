// The HTTP/1.1 response parser of the upstream client: framing rules, fed byte by byte so that every
// split a socket could make is exercised.
import { expect, test } from "bun:test";
import { ParseError, ResponseParser, type ResponseHead } from "../../../src/platform/http1/response-parser";

function parse(raw: string, opts: { oneByte?: boolean; noBody?: boolean } = {}) {
  const got = { head: null as ResponseHead | null, body: "", ended: false };
  const p = new ResponseParser(
    { head: (h) => (got.head = h), body: (b) => (got.body += Buffer.from(b).toString()), end: () => (got.ended = true) },
    undefined,
    opts.noBody,
  );
  const bytes = Buffer.from(raw);
  if (opts.oneByte) for (let i = 0; i < bytes.length; i++) p.feed(bytes.subarray(i, i + 1));
  else p.feed(bytes);
  return { ...got, parser: p };
}

const CHUNKED =
  "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
  "5;ext=1\r\nhello\r\n" +
  "7\r\n, world\r\n" +
  "0\r\nX-Trailer: yes\r\n\r\n";

test("a chunked body decodes the same whether it arrives whole or one byte at a time", () => {
  for (const oneByte of [false, true]) {
    const r = parse(CHUNKED, { oneByte });
    expect(r.head?.status).toBe(200);
    expect(r.head?.headers.get("content-type")).toBe("text/event-stream");
    expect(r.body).toBe("hello, world");
    expect(r.ended).toBe(true);
    expect(r.parser.keepAlive).toBe(true);
  }
});

test("a content-length body ends after exactly that many bytes", () => {
  const r = parse("HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nabcde", { oneByte: true });
  expect(r.head?.status).toBe(201);
  expect(r.head?.statusText).toBe("Created");
  expect(r.body).toBe("abcde");
  expect(r.ended).toBe(true);
});

test("bytes after the end of a response are an error (the connection is out of step)", () => {
  expect(() => parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab")).toThrow(ParseError);
});

test("interim 1xx responses are skipped and the final response is reported", () => {
  const r = parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", { oneByte: true });
  expect(r.head?.status).toBe(200);
  expect(r.body).toBe("ok");
});

test("204, 304 and HEAD responses have no body whatever their headers say", () => {
  expect(parse("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n").ended).toBe(true);
  expect(parse("HTTP/1.1 304 Not Modified\r\n\r\n").ended).toBe(true);
  expect(parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", { noBody: true }).ended).toBe(true);
});

test("a body without length or chunking runs to the connection's end, which cannot be reused", () => {
  const r = parse("HTTP/1.1 200 OK\r\n\r\npartial");
  expect(r.body).toBe("partial");
  expect(r.ended).toBe(false);
  expect(r.parser.readsToClose).toBe(true);
  expect(r.parser.keepAlive).toBe(false);
});

test("Connection: close and HTTP/1.0 without keep-alive forbid reuse", () => {
  expect(parse("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").parser.keepAlive).toBe(false);
  expect(parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").parser.keepAlive).toBe(false);
  expect(parse("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n").parser.keepAlive).toBe(true);
});

test("malformed framing is a parse error, not a guess", () => {
  expect(() => parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")).toThrow(ParseError);
  expect(() => parse("HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\n")).toThrow(ParseError);
  expect(() => parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n")).toThrow(ParseError);
  expect(() => parse("SPDY/3 200 OK\r\n\r\n")).toThrow(ParseError);
  expect(() => parse("HTTP/1.1 200 OK\r\n" + "x: " + "a".repeat(70_000))).toThrow(ParseError);
});
