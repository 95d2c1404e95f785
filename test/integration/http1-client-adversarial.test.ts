// The socket HTTP/1.1 client against upstreams that misbehave on purpose (issue 52 item 15): each one is a
// raw node:net server on 127.0.0.1 port 0 that writes exactly the bytes the case needs. Every case asserts
// an outcome (an answer, or an error) within a deadline, and that a connection left out of step is never
// handed to the next request: the next request's head must be the first bytes of a connection.
import { afterEach, describe, expect, test } from "bun:test";
import { createServer, type Socket } from "node:net";
import { createHttp1Client, type Http1Client } from "../../src/platform/tuning/http1/client";
import { UpstreamAbort } from "../../src/platform/upstream-abort";
import { AbortSweeper } from "../../src/platform/abort-sweeper";
import { within } from "../support/within";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanups.splice(0).reverse()) f();
});

function client(): Http1Client {
  const c = createHttp1Client();
  cleanups.push(() => c.close());
  return c;
}

interface Upstream {
  url: string;
  /** The first line each connection carried, in connection order (a desync shows up as a body line here or a hang). */
  firstLines: string[];
  connections: () => number;
}

/**
 * A raw upstream: once a connection's first request head has arrived, `answer` gets the socket and that
 * head and writes whatever it likes. A later request on the same connection (after one without a body)
 * goes to `answer` too, its head read from where the previous request ended.
 */
async function upstream(answer: (s: Socket, head: string, nth: number) => void): Promise<Upstream> {
  const firstLines: string[] = [];
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    connections++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => {});
    let buffered = "";
    let nth = 0;
    let waiting = true;
    s.on("data", (d) => {
      if (!waiting) return;
      buffered += d.toString("latin1");
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buffered.slice(0, end + 4);
      if (nth === 0) firstLines.push(head.slice(0, head.indexOf("\r\n")));
      buffered = buffered.slice(end + 4);
      waiting = false;
      answer(s, head, nth++);
      // A request without a body may be followed by another on the same connection.
      if (!/content-length: *[1-9]/i.test(head)) waiting = true;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    firstLines,
    connections: () => connections,
  };
}

const head = (status: string, length: number, extra = "") => `HTTP/1.1 ${status}\r\ncontent-length: ${length}\r\n${extra}\r\n`;
/** Larger than loopback's socket buffers on both ends: the client cannot have written it all when the answer comes. */
const hugeBody = () => new Uint8Array(64 * 1024 * 1024).fill(120);

describe("an upstream that answers before reading the request body", () => {
  test("a connection whose request body was not fully written when its 413 ended is closed, never pooled: the next request goes on a fresh connection", async () => {
    const u = await upstream((s, h) => {
      if (h.startsWith("POST")) {
        // Stop reading (the rest of the upload stays unwritten on the client) and refuse it at once, keep-alive.
        s.pause();
        s.write(head("413 Payload Too Large", 8) + "too big!");
      } else s.write(head("200 OK", 6) + "second");
    });
    const c = client();
    const first = await within(c.fetch(`${u.url}/upload`, { method: "POST", body: hugeBody() }), 5_000, "the 413");
    expect(first.status).toBe(413);
    expect(await first.text()).toBe("too big!");
    const second = await within(c.fetch(`${u.url}/second`, {}), 5_000, "the request after the 413");
    expect(await second.text()).toBe("second");
    expect(u.firstLines).toEqual(["POST /upload HTTP/1.1", "GET /second HTTP/1.1"]);
    expect(c.stats().idle).toBe(1);
  });

  test("an early 400 with `connection: close` mid-upload answers 400 and the next request opens a new connection", async () => {
    const u = await upstream((s, h) => {
      if (h.startsWith("POST")) {
        s.pause();
        s.end(head("400 Bad Request", 3, "connection: close\r\n") + "bad");
      } else s.write(head("200 OK", 2) + "ok");
    });
    const c = client();
    const first = await within(c.fetch(`${u.url}/upload`, { method: "POST", body: hugeBody() }), 5_000, "the 400");
    expect(first.status).toBe(400);
    expect(await first.text()).toBe("bad");
    expect(await (await within(c.fetch(`${u.url}/next`, {}), 5_000, "the next request")).text()).toBe("ok");
    expect(u.connections()).toBe(2);
  });
});

describe("bodies that disagree with their framing", () => {
  test("a body longer than its content-length gives exactly content-length bytes, and the connection is not reused", async () => {
    const u = await upstream((s, h) => {
      s.write(
        h.includes("/first") ? head("200 OK", 5) + "helloHTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\nsmuggled" : head("200 OK", 4) + "real",
      );
    });
    const c = client();
    expect(await (await within(c.fetch(`${u.url}/first`, {}), 3_000, "first")).text()).toBe("hello");
    // The extra bytes are never taken for the next request's answer.
    expect(await (await within(c.fetch(`${u.url}/second`, {}), 3_000, "second")).text()).toBe("real");
    expect(u.connections()).toBe(2);
  });

  test("a body shorter than its content-length, then `connection: close` mid-body, rejects the read with a TypeError", async () => {
    const u = await upstream((s) => s.end(head("200 OK", 100, "connection: close\r\n") + "only part"));
    const res = await within(client().fetch(`${u.url}/`, {}), 3_000, "head");
    const err = await within(
      res.text().then(
        () => null,
        (e: unknown) => e,
      ),
      3_000,
      "body",
    );
    expect(err).toBeInstanceOf(TypeError);
  });
});

describe("framing the client must understand", () => {
  test("a chunked body with trailers arrives whole, without its trailers, and the connection is reused", async () => {
    const u = await upstream((s) =>
      s.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nx-checksum: abc\r\nx-more: 1\r\n\r\n"),
    );
    const c = client();
    for (let i = 0; i < 2; i++) expect(await (await within(c.fetch(`${u.url}/${i}`, {}), 3_000, "chunked")).text()).toBe("hello");
    expect(u.connections()).toBe(1);
  });

  test("interim 1xx answers (100 Continue, 103 Early Hints) are skipped: the final answer's status and body come back", async () => {
    const u = await upstream((s) =>
      s.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n" + head("201 Created", 4) + "done"),
    );
    const res = await within(client().fetch(`${u.url}/`, {}), 3_000, "1xx");
    expect(res.status).toBe(201);
    expect(await res.text()).toBe("done");
  });
});

describe("a slow-loris upstream", () => {
  test("an upstream dribbling its head a byte at a time is cut off by the gateway's first-byte deadline (a JSON call's AbortSweeper watch): the request rejects with a TimeoutError and its connection is closed", async () => {
    const bytes = head("200 OK", 2) + "ok";
    let closed = false;
    const u = await upstream((s) => {
      let i = 0;
      const t = setInterval(() => (i < bytes.length - 10 ? s.write(bytes[i++]!) : undefined), 20);
      s.on("close", () => {
        closed = true;
        clearInterval(t);
      });
      cleanups.push(() => clearInterval(t));
    });
    const c = client();
    // A JSON call's connect deadline: the AbortSweeper's watch on the request (attempt.ts, send); a stream's is its session's.
    const abort = new UpstreamAbort();
    const sweeper = new AbortSweeper();
    const watch = sweeper.watch({ signal: new AbortController().signal }, abort, 150);
    cleanups.push(() => sweeper.release(watch));
    const err = await within(
      c.fetch(`${u.url}/`, {}, abort).then(
        () => null,
        (e: unknown) => e,
      ),
      3_000,
      "slow-loris",
    );
    expect((err as DOMException).name).toBe("TimeoutError");
    const deadline = Date.now() + 3_000;
    while (!closed && Date.now() < deadline) await Bun.sleep(5);
    expect(closed).toBe(true);
    expect(c.stats().idle).toBe(0);
  });
});
