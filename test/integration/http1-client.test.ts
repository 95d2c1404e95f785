// The socket HTTP/1.1 client against real local servers: Bun.serve where a well-behaved server will do,
// raw Bun.listen sockets where the server has to misbehave on the wire (closing after each answer
// without saying so, cutting a body short, writing chunks one at a time). Every server and client is
// closed after its test; nothing waits on a timer for luck: conditions are polled under a deadline.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHttp1Client, type Http1Client, type Http1ClientOptions } from "../../src/platform/tuning/http1/client";
import { UpstreamAbort } from "../../src/platform/upstream-abort";
import type { BodyTap } from "../../src/platform/upstream-answer";
import { eventually } from "../support/spawn";
import { within } from "../support/within";

const encoder = new TextEncoder();

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanups.splice(0).reverse()) f();
});

/** What the reader's next read rejects with (an Error saying so if it resolves), within 3 s. */
const readFailure = (reader: ReadableStreamDefaultReader<Uint8Array>): Promise<unknown> =>
  within(
    reader.read().then(
      () => new Error("read resolved"),
      (e: unknown) => e,
    ),
    3_000,
    "read after abort",
  );

function client(opts?: Http1ClientOptions): Http1Client {
  const c = createHttp1Client(opts);
  cleanups.push(() => c.close());
  return c;
}

/** A gate the test opens; opened at cleanup too, so no server handler is left waiting on it. */
function gate() {
  const g = Promise.withResolvers<void>();
  cleanups.push(() => g.resolve());
  return g;
}

/** Reads until at least `n` bytes have come (failing if the body ends first); returns them as text. */
async function readAtLeast(reader: ReadableStreamDefaultReader<Uint8Array>, n: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let got = 0;
  while (got < n) {
    const { done, value } = await within(reader.read(), 3_000, "body read");
    if (done) throw new Error(`body ended after ${got} of ${n} bytes`);
    got += value.length;
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** Feeds a body held back between `first` and `rest` until `hold` resolves (Bun.serve streams it chunked). */
function heldBody(first: string, hold: Promise<void>, rest: string): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(first));
      void hold.then(() => {
        try {
          controller.enqueue(encoder.encode(rest));
          controller.close();
        } catch {
          // The client went away (an abort test): nothing to send to.
        }
      });
    },
  });
}

function serve(fetch: (req: Request, server: Bun.Server<undefined>) => Response | Promise<Response>, tls?: { key: string; cert: string }) {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch, ...(tls ? { tls } : {}) });
  cleanups.push(() => void server.stop(true));
  return server;
}

interface RawConn {
  id: number;
  buffered: string;
  /** Requests this connection has carried. */
  served: number;
}
type RawSocket = Socket<RawConn>;

/**
 * A raw TCP server: requests are gathered (head, and a body by content-length) and handed to `answer`
 * with the connection's ordinal (from 1) and how many requests it carried before; `answer` writes
 * whatever bytes the test wants.
 */
function rawServer(answer: (s: RawSocket, request: string, conn: RawConn) => void) {
  const requests: string[] = [];
  let connections = 0;
  let closed = 0;
  const listener = Bun.listen<RawConn>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        s.data = { id: ++connections, buffered: "", served: 0 };
      },
      data(s, d) {
        s.data.buffered += Buffer.from(d).toString("latin1");
        for (;;) {
          const buf = s.data.buffered;
          const end = buf.indexOf("\r\n\r\n");
          if (end < 0) return;
          const length = Number(/\r\ncontent-length: *(\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
          if (buf.length < end + 4 + length) return;
          const request = buf.slice(0, end + 4 + length);
          s.data.buffered = buf.slice(request.length);
          requests.push(request);
          answer(s, request, s.data);
          s.data.served++;
        }
      },
      close() {
        closed++;
      },
    },
  });
  cleanups.push(() => listener.stop(true));
  return {
    url: `http://127.0.0.1:${listener.port}`,
    requests,
    connections: () => connections,
    closed: () => closed,
  };
}

const okHead = (length: number, extra = "") => `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${length}\r\n${extra}\r\n`;

describe("round trips and the pool", () => {
  test("a JSON POST arrives with its multi-byte UTF-8 body intact and its byte length as content-length; status, headers and body come back", async () => {
    let seen: { method: string; path: string; contentLength: string | null; contentType: string | null; text: string } | undefined;
    const server = serve(async (req) => {
      const text = await req.text();
      seen = {
        method: req.method,
        path: new URL(req.url).pathname + new URL(req.url).search,
        contentLength: req.headers.get("content-length"),
        contentType: req.headers.get("content-type"),
        text,
      };
      return Response.json({ echo: JSON.parse(text) }, { status: 201, headers: { "x-request-id": "req-1" } });
    });
    const payload = JSON.stringify({ text: "héllo wörld ✓ 日本語 🚀" });
    const res = await client().fetch(`http://127.0.0.1:${server.port}/v1/chat?x=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: payload,
    });
    expect(seen).toEqual({
      method: "POST",
      path: "/v1/chat?x=1",
      contentLength: String(Buffer.byteLength(payload)),
      contentType: "application/json",
      text: payload,
    });
    expect(Buffer.byteLength(payload)).toBeGreaterThan(payload.length);
    expect(res.status).toBe(201);
    expect(res.statusText).toBe("Created");
    expect(res.headers.get("x-request-id")).toBe("req-1");
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({ echo: { text: "héllo wörld ✓ 日本語 🚀" } });
  });

  test("five sequential requests to one origin reuse one pooled connection", async () => {
    const clientPorts = new Set<number | undefined>();
    let n = 0;
    const server = serve((req, srv) => {
      clientPorts.add(srv.requestIP(req)?.port);
      return new Response(`reply ${++n}`);
    });
    const c = client();
    for (let i = 1; i <= 5; i++) {
      const res = await c.fetch(`http://127.0.0.1:${server.port}/r${i}`, {});
      expect(await res.text()).toBe(`reply ${i}`);
    }
    expect(c.stats().opened).toBe(1);
    expect(c.stats().idle).toBe(1);
    expect(clientPorts.size).toBe(1);
  });

  test("the answer to a HEAD request ends at its head whatever its content-length says, and the connection is reused", async () => {
    const server = rawServer((s, request) => {
      if (request.startsWith("HEAD ")) s.write(okHead(1234));
      else s.write(okHead(2) + "ok");
    });
    const c = client();
    const head = await within(c.fetch(`${server.url}/`, { method: "HEAD" }), 3_000, "HEAD request");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("1234");
    expect(await within(head.text(), 3_000, "HEAD body")).toBe("");
    expect(await (await within(c.fetch(`${server.url}/`, {}), 3_000, "GET after HEAD")).text()).toBe("ok");
    expect(c.stats().opened).toBe(1);
  });
  test("afterExchange runs once per exchange, after its body has ended, and says whether the body came streamed", async () => {
    const hold = gate();
    const server = serve((req) =>
      new URL(req.url).pathname === "/held" ? new Response(heldBody("a|", hold.promise, "b")) : new Response("whole"),
    );
    let ended = 0;
    const streamed: boolean[] = [];
    const c = client({
      afterExchange: (s) => {
        ended++;
        streamed.push(s);
      },
    });
    expect(await (await c.fetch(`http://127.0.0.1:${server.port}/whole`, {})).text()).toBe("whole");
    expect(ended).toBe(1);
    const reader = (await within(c.fetch(`http://127.0.0.1:${server.port}/held`, {}), 3_000, "fetch")).body!.getReader();
    expect(await readAtLeast(reader, 2)).toBe("a|");
    // The body is still open: its exchange has not ended.
    expect(ended).toBe(1);
    hold.resolve();
    expect(await readAtLeast(reader, 1)).toBe("b");
    expect((await within(reader.read(), 3_000, "end of body")).done).toBe(true);
    expect(ended).toBe(2);
    // The whole answer came with its head; the held one in pieces after it.
    expect(streamed).toEqual([false, true]);
  });
});

describe("streaming and aborts", () => {
  test("the Response resolves and its first chunk reads while the server still holds the rest of the body", async () => {
    const hold = gate();
    const server = serve(() => new Response(heldBody("first|", hold.promise, "second")));
    const res = await within(client().fetch(`http://127.0.0.1:${server.port}/`, {}), 3_000, "fetch");
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect(await readAtLeast(reader, "first|".length)).toBe("first|");
    // Only now does the server send the rest.
    hold.resolve();
    expect(await readAtLeast(reader, "second".length)).toBe("second");
    expect((await within(reader.read(), 3_000, "end of body")).done).toBe(true);
  });

  // The gateway passes an UpstreamAbort (a callback switch) where a caller of fetch passes a signal: both cancel alike.
  const switches = {
    "an AbortSignal": () => {
      const ac = new AbortController();
      return { init: { signal: ac.signal }, abort: undefined, fire: (r: unknown) => ac.abort(r) };
    },
    "an UpstreamAbort": () => {
      const ua = new UpstreamAbort();
      return { init: {}, abort: ua, fire: (r: unknown) => ua.abort(r) };
    },
  };
  for (const [kind, make] of Object.entries(switches)) {
    test(`an abort before the headers, through ${kind}, rejects fetch with its reason`, async () => {
      const hold = gate();
      let arrived = false;
      const server = serve(async () => {
        arrived = true;
        await hold.promise;
        return new Response("too late");
      });
      const sw = make();
      const pending = client().fetch(`http://127.0.0.1:${server.port}/`, sw.init, sw.abort);
      expect(await eventually(() => arrived, 3_000)).toBe(true);
      const reason = new DOMException("timeout", "TimeoutError");
      sw.fire(reason);
      const err = await within(
        pending.then(
          () => new Error("resolved"),
          (e: unknown) => e,
        ),
        3_000,
        "aborted fetch",
      );
      expect(err).toBe(reason);
      expect((err as DOMException).name).toBe("TimeoutError");
    });

    test(`an abort mid-body, through ${kind}, makes the next body read reject with its reason`, async () => {
      const hold = gate();
      const server = serve(() => new Response(heldBody("first|", hold.promise, "never read")));
      const sw = make();
      const res = await within(client().fetch(`http://127.0.0.1:${server.port}/`, sw.init, sw.abort), 3_000, "fetch");
      const reader = res.body!.getReader();
      expect(await readAtLeast(reader, "first|".length)).toBe("first|");
      const reason = new DOMException("timeout", "TimeoutError");
      sw.fire(reason);
      const err = await readFailure(reader);
      expect(err).toBe(reason);
    });
  }

  test("an UpstreamAbort fired after its exchange ended changes nothing on the pooled connection", async () => {
    const server = serve(() => new Response("whole"));
    const c = client();
    const ua = new UpstreamAbort();
    expect(await (await c.fetch(`http://127.0.0.1:${server.port}/`, {}, ua)).text()).toBe("whole");
    ua.abort();
    // The connection went back to the pool and serves the next request.
    expect(await (await c.fetch(`http://127.0.0.1:${server.port}/`, {})).text()).toBe("whole");
    expect(c.stats().opened).toBe(1);
  });

  test("a body cancelled by its reader mid-stream closes its connection instead of pooling it", async () => {
    const hold = gate();
    const server = serve(() => new Response(heldBody("first|", hold.promise, "never read")));
    const c = client();
    const res = await within(c.fetch(`http://127.0.0.1:${server.port}/`, {}), 3_000, "fetch");
    const reader = res.body!.getReader();
    expect(await readAtLeast(reader, "first|".length)).toBe("first|");
    await reader.cancel();
    expect(await eventually(() => c.stats().connections === 0, 3_000)).toBe(true);
    expect(c.stats().idle).toBe(0);
    hold.resolve();
    // The next request goes on a connection of its own.
    const next = await within(c.fetch(`http://127.0.0.1:${server.port}/`, {}), 3_000, "next fetch");
    const nextReader = next.body!.getReader();
    expect(await readAtLeast(nextReader, "first|never read".length)).toBe("first|never read");
    expect(c.stats().opened).toBe(2);
  });

  test("body pieces left unread while later deliveries arrive keep their bytes (delivery buffers are not reused)", async () => {
    const PIECES = 32;
    const SIZE = 16 * 1024;
    const piece = (i: number) => Buffer.alloc(SIZE, 65 + (i % 26)).toString("latin1");
    const expected = Array.from({ length: PIECES }, (_, i) => piece(i)).join("");
    for (const framing of ["content-length", "chunked"] as const) {
      const server = rawServer(async (s) => {
        s.write(framing === "chunked" ? "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" : okHead(PIECES * SIZE));
        for (let i = 0; i < PIECES; i++) {
          s.write(framing === "chunked" ? `${SIZE.toString(16)}\r\n${piece(i)}\r\n` : piece(i));
          // Yield to the event loop so the client reads each write on its own.
          await new Promise<void>((r) => setImmediate(r));
        }
        if (framing === "chunked") s.write("0\r\n\r\n");
      });
      const c = client();
      const res = await within(c.fetch(`${server.url}/`, {}), 3_000, "fetch");
      // Nothing is read until the whole body is in (the connection is back in the pool).
      expect(await eventually(() => c.stats().idle === 1, 5_000)).toBe(true);
      const body = Buffer.from(await res.arrayBuffer()).toString("latin1");
      expect({ framing, length: body.length, same: body === expected }).toEqual({ framing, length: expected.length, same: true });
    }
  });
});

describe("answers (send): no Response made, the body by callback", () => {
  /** A tap that writes down what it hears. */
  function recorder() {
    const decoder = new TextDecoder();
    const heard = { text: "", pieces: 0, ended: false, error: undefined as unknown };
    const tap: BodyTap = {
      piece: (b, start, end) => {
        heard.pieces++;
        heard.text += decoder.decode(b.slice(start, end), { stream: true });
      },
      end: () => void (heard.ended = true),
      error: (e) => void (heard.error = e),
    };
    return { heard, tap };
  }

  /** An answer whose server sent "first|" and holds `rest` until `hold` opens, tapped once "first|" was heard. */
  async function tappedMidBody(rest: string, abort?: UpstreamAbort) {
    const hold = gate();
    const server = serve(() => new Response(heldBody("first|", hold.promise, rest)));
    const c = client();
    const a = await within(c.send(`http://127.0.0.1:${server.port}/`, {}, abort), 3_000, "send");
    const { heard, tap } = recorder();
    const stop = a.tap(tap);
    expect(await eventually(() => heard.text === "first|", 3_000)).toBe(true);
    return { hold, c, heard, stop };
  }

  test("a whole answer gives its status, its headers as sent and its body as text", async () => {
    const server = rawServer((s) => void s.write(okHead(5, "x-upstream: yes\r\n") + "hello"));
    const a = await within(client().send(`${server.url}/`, {}), 3_000, "send");
    expect({ status: a.status, ok: a.ok, header: a.headers.get("x-upstream"), type: a.headers.get("content-type") }).toEqual({
      status: 200,
      ok: true,
      header: "yes",
      type: "text/plain",
    });
    expect(await a.text()).toBe("hello");
  });

  test("a body that streams after its head reads whole as text once the server sends its end", async () => {
    const hold = gate();
    const server = serve(() => new Response(heldBody("first|", hold.promise, "second ✓")));
    const a = await within(client().send(`http://127.0.0.1:${server.port}/`, {}), 3_000, "send");
    const text = a.text();
    hold.resolve();
    expect(await within(text, 3_000, "text")).toBe("first|second ✓");
  });

  test("a tap taken while the server holds the rest hears what came already, then the rest as it arrives, then the end", async () => {
    const { hold, c, heard } = await tappedMidBody("second");
    expect(heard.ended).toBe(false);
    hold.resolve();
    expect(await eventually(() => heard.ended, 3_000)).toBe(true);
    expect({ text: heard.text, error: heard.error }).toEqual({ text: "first|second", error: undefined });
    // The body ended with the exchange: its connection went back to the pool.
    expect(c.stats().idle).toBe(1);
  });

  test("a tap taken after the whole streamed body arrived hears every piece in order, then the end, at once", async () => {
    const pieces = ["alpha|", "beta|", "gamma"];
    const server = rawServer(async (s) => {
      s.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n");
      for (const p of pieces) {
        s.write(`${p.length.toString(16)}\r\n${p}\r\n`);
        await new Promise<void>((r) => setImmediate(r));
      }
      s.write("0\r\n\r\n");
    });
    const c = client();
    const a = await within(c.send(`${server.url}/`, {}), 3_000, "send");
    expect(await eventually(() => c.stats().idle === 1, 5_000)).toBe(true);
    const { heard, tap } = recorder();
    a.tap(tap);
    expect(heard).toEqual({ text: pieces.join(""), pieces: heard.pieces, ended: true, error: undefined });
    // One reader per body: a second tap is refused.
    expect(() => a.tap(recorder().tap)).toThrow(TypeError);
  });

  test("an abort mid-body reaches the tap as its error, with the abort's reason", async () => {
    const ua = new UpstreamAbort();
    const { heard } = await tappedMidBody("never heard", ua);
    const reason = new DOMException("timeout", "TimeoutError");
    ua.abort(reason);
    expect(heard.error).toBe(reason);
    expect(heard.ended).toBe(false);
  });

  test("stopping a tap mid-body cancels the request: its connection is closed, not pooled", async () => {
    const { c, heard, stop } = await tappedMidBody("never heard");
    stop();
    expect((heard.error as DOMException).name).toBe("AbortError");
    expect(await eventually(() => c.stats().connections === 0, 3_000)).toBe(true);
    expect(c.stats().idle).toBe(0);
  });

  test("a streamed gzip body reaches the tap decoded", async () => {
    const text = "decoded ✓".repeat(100);
    const gz = Bun.gzipSync(encoder.encode(text));
    const head = `HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: ${gz.length}\r\n\r\n`;
    const half = gz.length >> 1;
    let socket: RawSocket | undefined;
    // Head and half the body first: the answer comes with a streaming body, the rest after.
    const server = rawServer((s) => {
      socket = s;
      s.write(Buffer.concat([Buffer.from(head, "latin1"), gz.subarray(0, half)]));
    });
    const a = await within(client().send(`${server.url}/`, {}), 3_000, "send");
    socket!.write(gz.subarray(half));
    expect(a.headers.get("content-encoding")).toBeNull();
    const { heard, tap } = recorder();
    a.tap(tap);
    expect(await eventually(() => heard.ended, 3_000)).toBe(true);
    expect(heard.text).toBe(text);
  });
});

describe("servers that misbehave on the wire", () => {
  test("a server that closes after every answer without `connection: close` still answers every sequential request", async () => {
    const server = rawServer((s, request) => {
      const path = request.split(" ")[1]!;
      const body = `reply to ${path}`;
      s.write(okHead(body.length) + body);
      s.end();
    });
    const c = client();
    for (let i = 1; i <= 5; i++) {
      const res = await within(c.fetch(`${server.url}/r${i}`, {}), 3_000, `request ${i}`);
      expect(await res.text()).toBe(`reply to /r${i}`);
    }
    // The closed connections leave the pool.
    expect(await eventually(() => c.stats().idle === 0 && c.stats().connections === 0, 3_000)).toBe(true);
  });

  test("a pooled connection the server closes before any byte of the answer is retried once on a fresh connection", async () => {
    const server = rawServer((s, _request, conn) => {
      // The first request on each connection is answered; a second one finds the connection closing.
      if (conn.served > 0) return void s.end();
      const body = `connection ${conn.id}`;
      s.write(okHead(body.length) + body);
    });
    const c = client();
    expect(await (await c.fetch(`${server.url}/a`, {})).text()).toBe("connection 1");
    const res = await within(c.fetch(`${server.url}/b`, {}), 3_000, "retried request");
    expect(await res.text()).toBe("connection 2");
    expect(c.stats().opened).toBe(2);
    expect(server.requests.map((r) => r.split("\r\n")[0])).toEqual(["GET /a HTTP/1.1", "GET /b HTTP/1.1", "GET /b HTTP/1.1"]);
  });

  test("an abort mid-body of a retried request errors that body and closes its new connection", async () => {
    const server = rawServer((s, _request, conn) => {
      if (conn.id === 1 && conn.served === 0) return void s.write(okHead(5) + "first");
      if (conn.id === 1) return void s.end();
      // On the fresh connection: half the body, and the rest never.
      s.write(okHead(10) + "hello");
    });
    const c = client();
    expect(await (await c.fetch(`${server.url}/a`, {})).text()).toBe("first");
    const ac = new AbortController();
    const res = await within(c.fetch(`${server.url}/b`, { signal: ac.signal }), 3_000, "retried request");
    const reader = res.body!.getReader();
    expect(await readAtLeast(reader, 5)).toBe("hello");
    ac.abort(new DOMException("timeout", "TimeoutError"));
    const err = await readFailure(reader);
    expect((err as DOMException).name).toBe("TimeoutError");
    expect(await eventually(() => server.closed() === 2, 3_000)).toBe(true);
  });

  test("a body cut short of its content-length makes reading it reject with a TypeError", async () => {
    const server = rawServer((s) => {
      s.write(okHead(100) + "0123456789");
      s.end();
    });
    const res = await within(client().fetch(`${server.url}/`, {}), 3_000, "fetch");
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let got = 0;
    let err: unknown;
    try {
      for (;;) {
        const { done, value } = await within(reader.read(), 3_000, "body read");
        if (done) break;
        got += value.length;
      }
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TypeError);
    expect(got).toBeLessThanOrEqual(10);
  });

  test("a chunked answer whose chunks arrive in separate writes delivers the whole body", async () => {
    const pieces = ["5\r\nhel", "lo\r\n8\r\n, wor", "ld!\r\n0\r\n\r\n"];
    let socket: RawSocket | undefined;
    const server = rawServer((s) => {
      socket = s;
      s.write(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${pieces[0]}`);
    });
    const res = await within(client().fetch(`${server.url}/`, {}), 3_000, "fetch");
    const reader = res.body!.getReader();
    // Each write is sent only once the body bytes of the one before have been read.
    let body = await readAtLeast(reader, 3);
    socket!.write(pieces[1]!);
    body += await readAtLeast(reader, 7);
    socket!.write(pieces[2]!);
    body += await readAtLeast(reader, 3);
    expect(body).toBe("hello, world!");
    expect((await within(reader.read(), 3_000, "end of body")).done).toBe(true);
  });
});

describe("content-encoding", () => {
  const text = JSON.stringify({ message: "compressed ✓".repeat(200) });
  const gz = Bun.gzipSync(encoder.encode(text));

  for (const delivery of ["in one write", "head first, body after the Response resolved"] as const) {
    test(`a gzip body (${delivery}) is decoded and the Response has no content-encoding or content-length`, async () => {
      let socket: RawSocket | undefined;
      const head = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${gz.length}\r\n\r\n`;
      const half = gz.length >> 1;
      const server = rawServer((s) => {
        socket = s;
        if (delivery === "in one write") s.write(Buffer.concat([Buffer.from(head, "latin1"), gz]));
        else s.write(Buffer.concat([Buffer.from(head, "latin1"), gz.subarray(0, half)]));
      });
      const res = await within(client().fetch(`${server.url}/`, {}), 3_000, "fetch");
      if (delivery !== "in one write") socket!.write(gz.subarray(half));
      expect(res.headers.get("content-encoding")).toBeNull();
      expect(res.headers.get("content-length")).toBeNull();
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(await within(res.text(), 3_000, "decoded body")).toBe(text);
    });
  }

  /** What sending to a raw server that writes `answer` rejects with (an Error saying so if it resolves). */
  const rejection = (answer: string) => {
    const server = rawServer((s) => void s.write(answer));
    const settled = client()
      .send(`${server.url}/`, {})
      .then(
        () => new Error("resolved"),
        (e: unknown) => e,
      );
    return within(settled, 3_000, "send");
  };

  test("an unsupported content-encoding rejects the request with a TypeError", async () => {
    expect(await rejection(okHead(5, "content-encoding: compress\r\n") + "hello")).toBeInstanceOf(TypeError);
  });

  test("a status a Response cannot carry (101 Switching Protocols) rejects the request with a RangeError, as fetch does", async () => {
    expect(await rejection("HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n")).toBeInstanceOf(
      RangeError,
    );
  });
});

describe("requests the client refuses to send, and servers it cannot reach", () => {
  test("a header value containing CR or LF is refused with a TypeError and nothing reaches the server", async () => {
    const server = rawServer((s) => void s.write(okHead(2) + "ok"));
    const c = client();
    for (const value of ["abc\r\nx-injected: 1", "abc\nx-injected: 1", "abc\rx-injected: 1"]) {
      // Wrapped so that a synchronous throw counts too (the next test holds the client to rejecting).
      const attempt = (async () => c.fetch(`${server.url}/`, { headers: { "x-api-key": value } }))();
      await expect(attempt).rejects.toThrow(TypeError);
    }
    expect(c.stats().opened).toBe(0);
    // A good request after them is the only one the server ever sees.
    expect(await (await c.fetch(`${server.url}/good`, {})).text()).toBe("ok");
    expect(server.connections()).toBe(1);
    expect(server.requests.length).toBe(1);
    expect(server.requests[0]).toStartWith("GET /good HTTP/1.1\r\n");
    expect(server.requests[0]).not.toContain("x-injected");
  });

  test("an invalid header is reported through the returned promise, as fetch does, never by a synchronous throw", async () => {
    const server = rawServer((s) => void s.write(okHead(2) + "ok"));
    let returned: Promise<Response> | undefined;
    expect(() => {
      returned = client().fetch(`${server.url}/`, { headers: { "x-api-key": "abc\r\nx-injected: 1" } });
    }).not.toThrow();
    await expect(returned!).rejects.toThrow(TypeError);
  });

  test("a port with nothing listening rejects fetch with ECONNREFUSED", async () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = listener.port;
    listener.stop(true);
    const c = client();
    const err = await within(
      c.fetch(`http://127.0.0.1:${port}/`, {}).then(
        () => new Error("resolved"),
        (e: unknown) => e,
      ),
      3_000,
      "fetch of a closed port",
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as { code?: string }).code).toBe("ECONNREFUSED");
    expect(c.stats().connections).toBe(0);
  });
});

describe("https", () => {
  let dir = "";
  let key = "";
  let cert = "";

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "switchyard-http1-tls-"));
    const made = Bun.spawnSync(
      [
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
        "-days",
        "1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stderr: "pipe" },
    );
    if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
    key = readFileSync(join(dir, "key.pem"), "utf8");
    cert = readFileSync(join(dir, "cert.pem"), "utf8");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("an https origin whose self-signed certificate is given as `ca` answers", async () => {
    const server = serve(() => new Response("secure hello"), { key, cert });
    const res = await within(client({ ca: cert }).fetch(`https://localhost:${server.port}/`, {}), 3_000, "https fetch");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("secure hello");
  });

  test("without `ca` the self-signed certificate is not trusted and the request rejects", async () => {
    let reached = false;
    const server = serve(
      () => {
        reached = true;
        return new Response("should not be read");
      },
      { key, cert },
    );
    const err = await within(
      client()
        .fetch(`https://localhost:${server.port}/`, {})
        .then(
          () => new Error("resolved"),
          (e: unknown) => e,
        ),
      3_000,
      "untrusted https fetch",
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).not.toBe("resolved");
    expect(reached).toBe(false);
  });
});
