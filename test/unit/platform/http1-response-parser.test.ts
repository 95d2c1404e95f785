// The incremental HTTP/1.1 response parser, fed bytes as a socket might deliver them: however a response
// is split, the same head, body and end come out; framing (length, chunked, close, none), interim heads,
// keep-alive and every malformed input it must refuse.
import { describe, expect, test } from "bun:test";
import { Http1ParseError, ResponseParser, type ResponseHead } from "../../../src/platform/tuning/http1/response-parser";

const encoder = new TextEncoder();
const bytes = (s: string) => encoder.encode(s);

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

interface Outcome {
  heads: ResponseHead[];
  body: Uint8Array;
  ends: boolean[];
}

/** A parser whose sink records what comes out; body pieces are copied, as they are views into deliveries. */
function recording(noBody = false) {
  const heads: ResponseHead[] = [];
  const pieces: Uint8Array[] = [];
  const ends: boolean[] = [];
  const parser = new ResponseParser(
    { head: (h) => heads.push(h), body: (p, s, e) => pieces.push(p.slice(s, e)), end: (k) => ends.push(k) },
    noBody,
  );
  const outcome = (): Outcome => ({ heads, body: concat(...pieces), ends });
  return { parser, outcome };
}

interface FeedOptions {
  noBody?: boolean;
  eof?: boolean;
  /** Deliver every piece through one buffer, overwritten after each push (as a socket reusing its read buffer). */
  reuse?: boolean;
}

function feed(deliveries: Uint8Array[], opts: FeedOptions = {}): Outcome {
  const { parser, outcome } = recording(opts.noBody);
  const scratch = new Uint8Array(Math.max(0, ...deliveries.map((d) => d.length)));
  for (const d of deliveries) {
    if (!opts.reuse) parser.push(d);
    else {
      scratch.set(d);
      parser.push(scratch.subarray(0, d.length));
      scratch.fill(0xff);
    }
  }
  if (opts.eof) parser.eof();
  return outcome();
}

/** The response whole, cut in two at every byte boundary, and one byte per delivery. */
function splits(all: Uint8Array): [string, Uint8Array[]][] {
  const out: [string, Uint8Array[]][] = [["whole", [all]]];
  for (let i = 1; i < all.length; i++) out.push([`cut at ${i}`, [all.subarray(0, i), all.subarray(i)]]);
  out.push(["byte by byte", [...all].map((_, i) => all.subarray(i, i + 1))]);
  return out;
}

/**
 * Every split of `all` gives `expected`, whether each delivery's buffer stays intact or is reused once
 * pushed (what the parser keeps across deliveries must be its own copy). The label shows in a failing diff.
 */
function expectEverySplit(all: Uint8Array, expected: Outcome) {
  for (const reuse of [false, true]) {
    for (const [split, deliveries] of splits(all)) {
      const label = `${split}${reuse ? ", buffer reused" : ""}`;
      expect({ label, ...feed(deliveries, { reuse }) }).toEqual({ label, ...expected });
    }
  }
}

/** Labels of the splits of `all` that did not throw Http1ParseError (at a push or at eof). */
function splitsNotRefused(all: Uint8Array, opts: FeedOptions = {}): string[] {
  const missed: string[] = [];
  for (const [label, deliveries] of splits(all)) {
    try {
      feed(deliveries, opts);
      missed.push(`${label}: no error`);
    } catch (err) {
      if (!(err instanceof Http1ParseError)) missed.push(`${label}: ${String(err)}`);
    }
  }
  return missed;
}

const head = (status: number, statusText: string, headers: [string, string][], extra: Partial<ResponseHead> = {}): ResponseHead => ({
  status,
  statusText,
  headers,
  untilClose: false,
  keepAlive: true,
  ...extra,
});

describe("framing survives any split of the bytes", () => {
  test("a Content-Length body gives the same head and body at every byte boundary and byte by byte, even through a reused buffer", () => {
    const body = bytes(JSON.stringify({ text: "héllo wörld ✓ 日本" }));
    const all = concat(
      bytes(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nContent-Length: ${body.length}\r\nX-Multi: a\r\nx-multi:  b \r\n\r\n`),
      body,
    );
    expectEverySplit(all, {
      heads: [
        head(200, "OK", [
          ["content-type", "application/json"],
          ["content-length", String(body.length)],
          ["x-multi", "a"],
          ["x-multi", "b"],
        ]),
      ],
      body,
      ends: [true],
    });
  });

  test("a chunked body with chunk extensions, CRLF inside chunk data and trailers gives the same result at every boundary, even through a reused buffer", () => {
    const all = bytes(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
        "5;name=value\r\nhello\r\n" +
        'A ; ext="quoted;value"\r\n, world!!!\r\n' +
        "4\r\n\r\n\r\n\r\n" +
        "0;last\r\nx-checksum: abc\r\nx-other: 1\r\n\r\n",
    );
    expectEverySplit(all, {
      heads: [head(200, "OK", [["transfer-encoding", "chunked"]])],
      body: bytes("hello, world!!!\r\n\r\n"),
      ends: [true],
    });
  });

  test("plain chunks (hex size of 1 to 12 digits in either case, CRLF, data, CRLF), several to a delivery, give the same body at every boundary", () => {
    const data = "data: " + "x".repeat(20) + "\n\n";
    const all = bytes(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
        `${data.length.toString(16).toUpperCase()}\r\n${data}\r\n` +
        `${data.length.toString(16).padStart(12, "0")}\r\n${data}\r\n` +
        "1\r\n\r\r\n" +
        `${data.length.toString(16)}\r\n${data}\r\n` +
        "0\r\n\r\n",
    );
    expectEverySplit(all, {
      heads: [head(200, "OK", [["transfer-encoding", "chunked"]])],
      body: bytes(data + data + "\r" + data),
      ends: [true],
    });
  });

  test("random chunked bodies (sizes in either case, leading zeros, extensions, CRLF in the data) give their body however they are cut", () => {
    let seed = 42;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    for (let round = 0; round < 300; round++) {
      const chunks = Array.from({ length: 1 + next(6) }, () => "ab\r\ncd\n\n€".slice(0, 1 + next(9)).repeat(1 + next(40)));
      let wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
      for (const c of chunks) {
        let size = bytes(c).length.toString(16);
        if (next(2)) size = size.toUpperCase();
        if (next(4) === 0) size = size.padStart(size.length + 1 + next(3), "0");
        wire += `${size}${next(5) === 0 ? ";x=1" : ""}\r\n${c}\r\n`;
      }
      const all = bytes(`${wire}0\r\n\r\n`);
      // Deliveries cut at random points (one in three responses whole).
      const deliveries: Uint8Array[] = [];
      for (let at = 0; at < all.length;) {
        const n = next(3) === 0 ? all.length : 1 + next(120);
        deliveries.push(all.subarray(at, Math.min(all.length, at + n)));
        at += n;
      }
      const out = feed(deliveries, { reuse: next(2) === 1 });
      expect({ round, body: new TextDecoder().decode(out.body), ends: out.ends }).toEqual({ round, body: chunks.join(""), ends: [true] });
    }
  });

  test("interim 100 and 103 heads are skipped: only the final head reaches the sink, at every boundary", () => {
    const all = bytes(
      "HTTP/1.1 100 Continue\r\n\r\n" +
        "HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n" +
        "HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok",
    );
    expectEverySplit(all, { heads: [head(201, "Created", [["content-length", "2"]])], body: bytes("ok"), ends: [true] });
  });

  test("a body with neither length nor chunked coding ends only at eof(), and its connection is not kept alive", () => {
    const all = bytes("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nstreamed until the server closes");
    const expectedHead = head(200, "OK", [["content-type", "text/plain"]], { untilClose: true, keepAlive: false });
    for (const [label, deliveries] of splits(all)) {
      const { parser, outcome } = recording();
      for (const d of deliveries) parser.push(d);
      expect({ label, ends: outcome().ends, done: parser.done }).toEqual({ label, ends: [], done: false });
      parser.eof();
      expect({ label, ...outcome() }).toEqual({
        label,
        heads: [expectedHead],
        body: bytes("streamed until the server closes"),
        ends: [false],
      });
    }
  });
});

describe("bodyless answers end with their head", () => {
  test("a 204 and a 304 end at their head (no eof needed), even without a length", () => {
    for (const [status, text] of [
      [204, "No Content"],
      [304, "Not Modified"],
    ] as const) {
      const { parser, outcome } = recording();
      parser.push(bytes(`HTTP/1.1 ${status} ${text}\r\netag: "x"\r\n\r\n`));
      expect(parser.done).toBe(true);
      expect(outcome()).toEqual({ heads: [head(status, text, [["etag", '"x"']])], body: new Uint8Array(0), ends: [true] });
    }
  });

  test("the answer to a HEAD request (noBody) has no body, whatever its length or coding says", () => {
    for (const framing of ["content-length: 1234", "transfer-encoding: chunked", "content-type: text/plain"]) {
      const [name, value] = framing.split(": ") as [string, string];
      const { parser, outcome } = recording(true);
      parser.push(bytes(`HTTP/1.1 200 OK\r\n${framing}\r\n\r\n`));
      expect(parser.done).toBe(true);
      expect(outcome()).toEqual({ heads: [head(200, "OK", [[name, value]])], body: new Uint8Array(0), ends: [true] });
    }
  });
});

describe("keep-alive follows the version and the connection header", () => {
  const cases: [string, string, boolean][] = [
    ["HTTP/1.1 keeps the connection by default", "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n", true],
    ["HTTP/1.1 with `connection: close` does not", "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n", false],
    ["`Connection: Close` is matched without regard to case", "HTTP/1.1 200 OK\r\nConnection: Close\r\ncontent-length: 0\r\n\r\n", false],
    ["HTTP/1.0 without keep-alive does not", "HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n", false],
    ["HTTP/1.0 with `connection: keep-alive` does", "HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 0\r\n\r\n", true],
  ];
  for (const [rule, response, keepAlive] of cases) {
    test(rule, () => {
      const { heads, ends } = feed([bytes(response)]);
      expect(heads.map((h) => h.keepAlive)).toEqual([keepAlive]);
      expect(ends).toEqual([keepAlive]);
    });
  }

  test("two equal content-lengths are one length", () => {
    const { body, ends } = feed([bytes("HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 5\r\n\r\nhello")]);
    expect(body).toEqual(bytes("hello"));
    expect(ends).toEqual([true]);
  });
});

describe("malformed input throws Http1ParseError, however it is split", () => {
  const cases: [string, string][] = [
    ["a status line of another protocol version", "HTTP/2 200 OK\r\ncontent-length: 0\r\n\r\n"],
    ["a status code of two digits", "HTTP/1.1 20 OK\r\ncontent-length: 0\r\n\r\n"],
    ["a status line without the space before its reason", "HTTP/1.1 200OK\r\ncontent-length: 0\r\n\r\n"],
    ["a body where the status line should be", "<html>hello</html>\r\n\r\n"],
    ["a chunk size that is not hexadecimal", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"],
    ["an empty chunk size line", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n\r\nhello\r\n0\r\n\r\n"],
    ["a negative chunk size", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n"],
    ["a chunk size with a space between its digits", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1 0\r\nhello\r\n0\r\n\r\n"],
    ["a chunk size of 13 hex digits", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0000000000005\r\nhello\r\n0\r\n\r\n"],
    [
      "a chunk size followed by text that is not an extension",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5x\r\nhello\r\n0\r\n\r\n",
    ],
    ["chunk data longer than its size", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n"],
    ["chunk data ended by a bare LF", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\n0\r\n\r\n"],
    ["two different content-lengths", "HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\nhello!"],
    ["a content-length that is not a number", "HTTP/1.1 200 OK\r\ncontent-length: 5x\r\n\r\nhello"],
  ];
  for (const [what, response] of cases) {
    test(`${what} is refused`, () => {
      expect(splitsNotRefused(bytes(response))).toEqual([]);
    });
  }

  test("a head longer than 64 KB without its blank line is refused, in one delivery or in 1 KB pieces", () => {
    const all = bytes(`HTTP/1.1 200 OK\r\nx-pad: ${"a".repeat(70 * 1024)}`);
    expect(() => feed([all])).toThrow(Http1ParseError);
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < all.length; i += 1024) pieces.push(all.subarray(i, i + 1024));
    expect(() => feed(pieces)).toThrow(Http1ParseError);
  });

  test("a head just under 64 KB, delivered in 1 KB pieces, is accepted", () => {
    const pad = "a".repeat(60 * 1024);
    const all = bytes(`HTTP/1.1 200 OK\r\nx-pad: ${pad}\r\ncontent-length: 2\r\n\r\nok`);
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < all.length; i += 1024) pieces.push(all.subarray(i, i + 1024));
    const { heads, body, ends } = feed(pieces);
    expect(heads[0]!.headers[0]).toEqual(["x-pad", pad]);
    expect(body).toEqual(bytes("ok"));
    expect(ends).toEqual([true]);
  });
});

describe("eof() before the response is complete throws", () => {
  const cases: [string, string][] = [
    ["before the head is complete", "HTTP/1.1 200 OK\r\ncontent-le"],
    ["in the middle of a length-framed body", "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel"],
    ["in the middle of a chunk's data", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel"],
    ["between chunks", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n"],
    ["in the trailers", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nx-trailer: 1\r\n"],
  ];
  for (const [where, response] of cases) {
    test(`eof ${where} is refused (at every split)`, () => {
      expect(splitsNotRefused(bytes(response), { eof: true })).toEqual([]);
    });
  }

  test("eof after a complete length-framed body is accepted and ends nothing twice", () => {
    const { parser, outcome } = recording();
    parser.push(bytes("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"));
    parser.eof();
    expect(outcome().ends).toEqual([true]);
  });
});

test("`untouched` holds before any byte (an empty delivery included) and not after the first byte", () => {
  const { parser } = recording();
  expect(parser.untouched).toBe(true);
  parser.push(new Uint8Array(0));
  expect(parser.untouched).toBe(true);
  parser.push(bytes("H"));
  expect(parser.untouched).toBe(false);
  parser.push(bytes("TTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"));
  expect(parser.untouched).toBe(false);
  expect(parser.done).toBe(true);
});

test("reset() readies the parser for the next response on the connection: untouched again, no leftovers, the HEAD flag renewed", () => {
  const { parser, outcome } = recording();
  parser.push(bytes("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfirst"));
  expect(parser.done).toBe(true);
  parser.reset(true);
  expect(parser.untouched).toBe(true);
  // The answer to a HEAD: its length announces a body that does not follow.
  parser.push(bytes("HTTP/1.1 200 OK\r\ncontent-length: 99\r\n\r\n"));
  expect(parser.done).toBe(true);
  parser.reset();
  // Half a head, then a reset (the exchange was given up): nothing of it carries over.
  parser.push(bytes("HTTP/1.1 500 Internal"));
  parser.reset();
  expect(parser.untouched).toBe(true);
  parser.push(bytes("HTTP/1.0 200 OK\r\ncontent-length: 6\r\n\r\nsecond"));
  expect(outcome()).toEqual({
    heads: [
      head(200, "OK", [["content-length", "5"]]),
      head(200, "OK", [["content-length", "99"]]),
      head(200, "OK", [["content-length", "6"]], { keepAlive: false }),
    ],
    body: bytes("firstsecond"),
    ends: [true, true, false],
  });
});

describe("a head is read from its bytes as String's split, toLowerCase and trim read its latin1 text", () => {
  /** The head's headers the string way (what the parser did before it read bytes): the reference. */
  function byStrings(headText: string): [string, string][] {
    return headText
      .split("\r\n")
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]);
  }
  const latin1Bytes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
  const headOf = (headText: string) => {
    const { heads } = feed([latin1Bytes(`${headText}\r\ncontent-length: 0\r\n\r\n`)]);
    return heads[0]!.headers.slice(0, -1);
  };

  test("names in any case, met again in other cases, come out lower-cased; values keep inner spaces, colons and lone CR or LF", () => {
    const heads = [
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Multi: a\r\nx-url: http://host:8080/p",
      "HTTP/1.1 200 OK\r\nCONTENT-TYPE: text/plain\r\ncontent-type:x\r\nx-MULTI:  two  words \r\nX-Odd: a\rb\nc",
    ];
    for (const text of heads) expect(headOf(text)).toEqual(byStrings(text));
    expect(headOf(heads[1]!)).toEqual([
      ["content-type", "text/plain"],
      ["content-type", "x"],
      ["x-multi", "two  words"],
      ["x-odd", "a\rb\nc"],
    ]);
  });

  test("latin1 bytes: a non-ASCII name is lower-cased as toLowerCase does, values lose the whitespace trim() removes (tab, VT, FF, no-break space)", () => {
    const text =
      "HTTP/1.1 200 OK\r\nX-\u00c4rger: \u00a0\t\u000b\u000cvalue \u00e9\u00a0 \r\nx-\u00e4rger:\u00c9\r\nX-\u00c4RGER:\u0085kept\u0085";
    expect(headOf(text)).toEqual(byStrings(text));
    expect(headOf(text).map(([name]) => name)).toEqual(["x-\u00e4rger", "x-\u00e4rger", "x-\u00e4rger"]);
  });

  test("past the remembered names (300 distinct ones, and names longer than 64 bytes) every name is still read right", () => {
    const names = Array.from({ length: 300 }, (_, i) => `X-Name-${i}${i % 7 === 0 ? "-".repeat(70) : ""}`);
    const text = `HTTP/1.1 200 OK\r\n${names.map((n, i) => `${n}: v${i}`).join("\r\n")}`;
    expect(headOf(text)).toEqual(byStrings(text));
    expect(headOf(text)).toEqual(byStrings(text));
  });

  test("the status line: a reason, an empty reason, none; HTTP/1.0", () => {
    for (const [line, status, statusText] of [
      ["HTTP/1.1 404 Not Found", 404, "Not Found"],
      ["HTTP/1.1 200 ", 200, ""],
      ["HTTP/1.1 201", 201, ""],
      ["HTTP/1.0 503 Service Unavailable", 503, "Service Unavailable"],
    ] as const) {
      const { heads } = feed([bytes(`${line}\r\ncontent-length: 0\r\n\r\n`)]);
      expect([heads[0]!.status, heads[0]!.statusText]).toEqual([status, statusText]);
    }
  });

  test("a header line without a colon, or with an empty name, and a status line with a CR in its reason are refused", () => {
    for (const text of ["HTTP/1.1 200 OK\r\nno colon here", "HTTP/1.1 200 OK\r\n: empty name", "HTTP/1.1 200 O\rK"]) {
      expect(() => feed([bytes(`${text}\r\ncontent-length: 0\r\n\r\n`)])).toThrow(Http1ParseError);
    }
  });
});
