// A small origin on Node's own http server (run with `node`, never Bun), for the upstream client
// contract (test/integration/upstream-client): each framing a server may choose, errors with bodies, an
// SSE stream held at a gate the test opens, and connection accounting. Prints {"port":N} once listening.
import { createServer } from "node:http";
import { gzipSync } from "node:zlib";

const JSON_BODY = JSON.stringify({ object: "chat.completion", choices: [{ message: { role: "assistant", content: "hello from node" } }] });
const gates = new Map();
/** `abandoned`: SSE streams whose client went away before their end. */
const stats = { connections: 0, requests: 0, abandoned: 0 };
/** Sockets that carried a request: the one flagged `/drop-next` is destroyed on its next request. */
const dropNext = new WeakSet();

function gate(id) {
  let g = gates.get(id);
  if (!g) {
    let open;
    g = { opened: new Promise((r) => (open = r)), open };
    gates.set(id, g);
  }
  return g;
}

const server = createServer(async (req, res) => {
  stats.requests++;
  const url = new URL(req.url, "http://origin");
  const path = url.pathname;
  if (dropNext.has(req.socket)) {
    // A kept-alive connection the server gave up on just as the next request came: no answer at all.
    req.socket.destroy();
    return;
  }
  if (path === "/json") {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(JSON_BODY) });
    return res.end(JSON_BODY);
  }
  if (path === "/chunked") {
    res.writeHead(200, { "content-type": "application/json" });
    const half = Math.floor(JSON_BODY.length / 2);
    res.write(JSON_BODY.slice(0, half));
    return setImmediate(() => res.end(JSON_BODY.slice(half)));
  }
  if (path === "/gzip") {
    const body = gzipSync(JSON_BODY);
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip", "content-length": body.length });
    return res.end(body);
  }
  if (path === "/until-close") {
    // Neither a length nor chunked coding: the body ends when the server closes the connection.
    res.useChunkedEncodingByDefault = false;
    res.shouldKeepAlive = false;
    res.writeHead(200, { "content-type": "application/json", connection: "close" });
    res.write(JSON_BODY.slice(0, 10));
    return setImmediate(() => res.end(JSON_BODY.slice(10)));
  }
  if (path.startsWith("/status/")) {
    const status = Number(path.slice(8));
    const body = JSON.stringify({ error: { message: `status ${status} from node`, code: status } });
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    return res.end(body);
  }
  if (path === "/sse") {
    const id = url.searchParams.get("id") ?? "";
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.on("close", () => {
      if (!res.writableEnded) stats.abandoned++;
    });
    res.write(`data: {"n":1,"id":"${id}"}\n\n`);
    await gate(id).opened;
    res.write(`data: {"n":2}\n\n`);
    return res.end("data: [DONE]\n\n");
  }
  if (path === "/release") {
    gate(url.searchParams.get("id") ?? "").open();
    res.writeHead(204);
    return res.end();
  }
  if (path === "/drop-next") {
    dropNext.add(req.socket);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(JSON_BODY) });
    return res.end(JSON_BODY);
  }
  if (path === "/close-idle") {
    res.writeHead(204, { connection: "close" });
    res.end();
    return setImmediate(() => server.closeIdleConnections());
  }
  if (path === "/stats") {
    const body = JSON.stringify(stats);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    return res.end(body);
  }
  res.writeHead(404, { "content-type": "text/plain" });
  res.end("no such path");
});
server.on("connection", () => stats.connections++);
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
process.on("SIGTERM", () => process.exit(0));
