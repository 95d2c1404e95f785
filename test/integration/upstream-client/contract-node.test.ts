// The upstream client contract against Node's own http server (node-server.ts, run under `node`): the
// same framing cases as against nginx, plus a body that ends when the server closes, and a server that
// drops a kept-alive connection between requests. Same cases for both clients, called as the gateway does.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createUpstreamClient, type UpstreamClient } from "../../../src/platform/tuning/upstream-client";
import { startNodeServer, type NodeServer } from "./node-server";
import { tapText } from "./read";
import { UpstreamAbort } from "../../../src/platform/upstream-abort";
import { eventually } from "../../support/spawn";

const KINDS = ["sockets", "fetch"] as const;
const CONTENT = "hello from node";

let node: NodeServer;
beforeAll(async () => {
  node = await startNodeServer();
});
afterAll(() => node?.stop());

describe.each(KINDS)("upstream client contract against Node's http server: %s", (kind) => {
  let client: UpstreamClient;
  beforeAll(() => {
    client = createUpstreamClient(kind);
  });
  afterAll(() => client.close());
  const get = (path: string, headers: Record<string, string> = {}) => client.send(`${node.url}${path}`, { method: "GET", headers });
  const content = async (path: string) => {
    const a = await get(path);
    expect(a.status).toBe(200);
    return JSON.parse(await a.text()).choices[0].message.content as string;
  };

  test("a JSON body framed by Content-Length", async () => {
    const a = await get("/json");
    expect(Number(a.headers.get("content-length"))).toBeGreaterThan(0);
    expect(JSON.parse(await a.text()).choices[0].message.content).toBe(CONTENT);
  });

  test("a chunked body written in two pieces", async () => {
    expect(await content("/chunked")).toBe(CONTENT);
  });

  test("a gzip body (Content-Encoding: gzip) arrives decoded", async () => {
    expect(await content("/gzip")).toBe(CONTENT);
  });

  test("a body with neither length nor chunking ends when the server closes", async () => {
    const a = await get("/until-close");
    expect(a.headers.get("content-length")).toBeNull();
    expect(JSON.parse(await tapText(a).ended()).choices[0].message.content).toBe(CONTENT);
    // The connection it came on is not reused: the next request still succeeds.
    expect(await content("/json")).toBe(CONTENT);
  });

  test("4xx and 5xx answers keep their status and JSON body", async () => {
    for (const status of [400, 429, 500, 503]) {
      const a = await get(`/status/${status}`);
      expect([a.status, a.ok]).toEqual([status, false]);
      expect(JSON.parse(await a.text())).toEqual({ error: { message: `status ${status} from node`, code: status } });
    }
  });

  test("keep-alive: consecutive requests open at most one connection", async () => {
    await content("/json");
    const before = (await node.stats()).connections;
    for (let i = 0; i < 5; i++) expect(await content("/json")).toBe(CONTENT);
    // The stats requests have connections of their own (control): one each.
    expect((await node.stats()).connections - before).toBe(1);
  });

  test("an SSE stream is read event by event, the first before the last is sent", async () => {
    const id = `node-${kind}`;
    const body = tapText(await get(`/sse?id=${id}`, { accept: "text/event-stream" }));
    await body.seen(`"n":1`);
    expect(body.text()).not.toContain(`"n":2`);
    await node.release(id);
    expect((await body.ended()).trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  test("aborting a stream midway (the gateway's UpstreamAbort) fails its body and closes the upstream connection", async () => {
    const before = (await node.stats()).abandoned;
    const abort = new UpstreamAbort();
    const a = await client.send(`${node.url}/sse?id=abort-${kind}`, { method: "GET", headers: { accept: "text/event-stream" } }, abort);
    const body = tapText(a);
    await body.seen(`"n":1`);
    abort.abort(new DOMException("client went away", "AbortError"));
    await expect(body.ended()).rejects.toMatchObject({ name: "AbortError" });
    expect(await eventually(async () => (await node.stats()).abandoned > before, 5_000, 10)).toBe(true);
  });

  test("idle connections the server closed between requests are not used again", async () => {
    expect(await content("/json")).toBe(CONTENT);
    const closed = await get("/close-idle");
    expect(closed.status).toBe(204);
    await closed.text();
    for (let i = 0; i < 3; i++) expect(await content("/json")).toBe(CONTENT);
  });

  test("a kept-alive connection the server drops as the next request arrives: that request goes once more on a fresh one", async () => {
    const first = await get("/drop-next");
    expect(first.status).toBe(200);
    await first.text();
    const before = await node.stats();
    // The pooled connection carries this request; the server destroys it without answering.
    expect(await content("/json")).toBe(CONTENT);
    const after = await node.stats();
    // Two arrivals of the request: the dropped one and its retry on a new connection.
    expect(after.requests - before.requests).toBeGreaterThanOrEqual(3);
  });
});
