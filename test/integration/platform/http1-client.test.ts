// The upstream HTTP/1.1 client against real local servers: Bun.serve for ordinary traffic, and raw
// TCP servers (Bun.listen) that script the exact bytes and connection behaviour a rule needs.
import { afterEach, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { Http1Client, upstreamFetch } from "../../../src/platform/http1/client";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function client(opts = {}) {
  const c = new Http1Client(opts);
  cleanups.push(() => c.close());
  return c;
}

/** A raw server: `onRequest` is called with each request's text (head and body, as it arrives) and its socket. */
function rawServer(onRequest: (socket: Socket<{ n: number }>, text: string, connection: number) => void) {
  let connections = 0;
  let closes = 0;
  const requests: string[] = [];
  const server: TCPSocketListener<{ n: number }> = Bun.listen<{ n: number }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (s) => {
        s.data = { n: ++connections };
      },
      data: (s, d) => {
        const text = Buffer.from(d).toString();
        requests.push(text);
        onRequest(s, text, s.data.n);
      },
      close: () => {
        closes++;
      },
    },
  });
  cleanups.push(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}`, connections: () => connections, closes: () => closes, requests };
}

const OK = (body: string) => `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

test("a keep-alive connection is reused for the next request to the same origin", async () => {
  const srv = rawServer((s) => s.write(OK("pong")));
  const c = client();
  for (let i = 0; i < 3; i++) {
    const r = await c.request(`${srv.url}/ping`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("pong");
  }
  expect(srv.connections()).toBe(1);
  expect(srv.requests[0]).toStartWith("POST /ping HTTP/1.1\r\nhost: 127.0.0.1:");
  expect(srv.requests[0]).toContain("content-length: 2\r\n");
});

test("streamed chunks reach the reader as they arrive, before the response ends", async () => {
  let sock: Socket<{ n: number }> | null = null;
  const srv = rawServer((s) => {
    sock = s;
    s.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: text/event-stream\r\n\r\n6\r\ndata:1\r\n");
  });
  const r = await client().request(`${srv.url}/s`, { method: "POST", body: "{}" });
  const reader = r.body!.getReader();
  const first = await reader.read();
  expect(Buffer.from(first.value!).toString()).toBe("data:1");
  sock!.write("6\r\ndata:2\r\n0\r\n\r\n"); // sent only after the first piece was read
  let rest = "";
  for (;;) {
    const x = await reader.read();
    if (x.done) break;
    rest += Buffer.from(x.value).toString();
  }
  expect(rest).toBe("data:2");
});

test("a pooled connection the server closed is detected and the request is sent once on a new one", async () => {
  // The first connection answers once, then closes without answering its second request.
  const srv = rawServer((s, _text, n) => {
    if (n === 1 && srv.requests.length > 1) return void s.end();
    s.write(OK(`conn ${n}`));
  });
  const c = client();
  expect(await (await c.request(`${srv.url}/a`, { method: "POST", body: "1" })).text()).toBe("conn 1");
  expect(await (await c.request(`${srv.url}/a`, { method: "POST", body: "2" })).text()).toBe("conn 2");
  expect(srv.connections()).toBe(2);
  expect(srv.requests.length).toBe(3);
});

test("a new connection closed without an answer fails the call and the request is not sent twice", async () => {
  const srv = rawServer((s) => void s.end());
  const err = await client()
    .request(`${srv.url}/x`, { method: "POST", body: "{}" })
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(err).toBeInstanceOf(TypeError);
  expect(srv.requests.length).toBe(1);
});

test("a body framed by the connection's end is complete when the server closes", async () => {
  const srv = rawServer((s) => {
    s.write("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nall of it");
    s.end();
  });
  const c = client();
  expect(await (await c.request(`${srv.url}/`, {})).text()).toBe("all of it");
  expect(await (await c.request(`${srv.url}/`, {})).text()).toBe("all of it");
  expect(srv.connections()).toBe(2); // never reused
});

test("an abort before the answer rejects with the signal's reason and closes the connection", async () => {
  const srv = rawServer(() => {}); // never answers
  const abort = new AbortController();
  const pending = client().request(`${srv.url}/slow`, { method: "POST", body: "{}", signal: abort.signal });
  await Bun.sleep(0);
  abort.abort(new DOMException("timeout", "TimeoutError"));
  const err = (await pending.catch((e: unknown) => e)) as Error;
  expect(err.name).toBe("TimeoutError");
  const deadline = Date.now() + 2000;
  while (srv.closes() === 0 && Date.now() < deadline) await Bun.sleep(5);
  expect(srv.closes()).toBe(1);
});

test("an abort mid-body errors the body's reader", async () => {
  const srv = rawServer((s) => s.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nhi\r\n"));
  const abort = new AbortController();
  const r = await client().request(`${srv.url}/s`, { method: "POST", body: "{}", signal: abort.signal });
  const reader = r.body!.getReader();
  expect(Buffer.from((await reader.read()).value!).toString()).toBe("hi");
  abort.abort(new DOMException("client gone", "AbortError"));
  const err = (await reader.read().catch((e: unknown) => e)) as Error;
  expect(err.name).toBe("AbortError");
});

test("a header value with CR or LF is refused before anything is sent", async () => {
  const srv = rawServer((s) => s.write(OK("no")));
  const sent = client().request(`${srv.url}/`, { method: "POST", headers: { authorization: "Bearer x\r\nx-evil: 1" }, body: "{}" });
  expect(sent).rejects.toThrow(TypeError);
  await sent.catch(() => undefined);
  expect(srv.requests.length).toBe(0);
});

test("a large request body is sent whole under socket back-pressure, and a large answer read whole", async () => {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (req) => new Response((await req.text()).toUpperCase()) });
  cleanups.push(() => void server.stop(true));
  const body = "abcdefgh".repeat(1_000_000); // 8 MB
  const r = await client().request(`http://127.0.0.1:${server.port}/echo`, { method: "POST", body });
  const text = await r.text();
  expect(text.length).toBe(body.length);
  expect(text.slice(0, 8)).toBe("ABCDEFGH");
});

test("https URLs, non-string bodies and a configured proxy go to the fallback fetch", async () => {
  const seen: string[] = [];
  const fallback = async (url: string) => {
    seen.push(url);
    return new Response("fallback");
  };
  const f = upstreamFetch(fallback, {});
  await f("https://api.example.com/v1/x", { method: "POST", body: "{}" });
  await f("http://127.0.0.1:1/v1/x", { method: "POST", body: new Blob(["{}"]) });
  const proxied = upstreamFetch(fallback, { HTTP_PROXY: "http://proxy:3128" });
  await proxied("http://127.0.0.1:1/v1/y", { method: "POST", body: "{}" });
  expect(seen).toEqual(["https://api.example.com/v1/x", "http://127.0.0.1:1/v1/x", "http://127.0.0.1:1/v1/y"]);
});

test("a refused connection fails the call with a TypeError, like fetch", async () => {
  const free = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = free.port;
  free.stop(true);
  expect(client().request(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" })).rejects.toThrow(TypeError);
});
