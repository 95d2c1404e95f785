// The upstream client contract against nginx: the same cases for the socket client and for fetch,
// called as the gateway calls them (UpstreamClient.send, answers read with a tap or as text). nginx and
// the Node origin behind its streamed paths are started here; https uses a CA made for this run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createUpstreamClient, type UpstreamClient } from "../../../src/platform/tuning/upstream-client";
import { canRunNginx, startNginx, type Nginx } from "./nginx";
import { startNodeServer, type NodeServer } from "./node-server";
import { makeTestCa, type TestCa } from "./tls";
import { tapText } from "./read";

const KINDS = ["sockets", "fetch"] as const;
const IDENTITY = { "accept-encoding": "identity" };
const GZIP = { "accept-encoding": "gzip" };

let ca: TestCa;
let node: NodeServer;
let nginx: Nginx;

describe.skipIf(!canRunNginx)("upstream client contract against nginx", () => {
  beforeAll(async () => {
    ca = makeTestCa();
    node = await startNodeServer();
    nginx = await startNginx(ca, node.port);
  });
  afterAll(async () => {
    await nginx?.stop();
    await node?.stop();
  });

  describe.each(KINDS)("%s", (kind) => {
    let client: UpstreamClient;
    beforeAll(() => {
      client = createUpstreamClient(kind, { ca: ca.caPem });
      expect(client.kind).toBe(kind);
    });
    afterAll(() => client.close());

    // nginx writes a request's log line as it finishes it, which may be just after the client has the body.
    const logOf = async (uri: string, n = 1) => {
      const until = Date.now() + 5_000;
      for (;;) {
        const lines = nginx.log().filter((l) => l.uri === uri);
        if (lines.length >= n || Date.now() > until) return lines;
        await Bun.sleep(10);
      }
    };
    const get = (url: string, headers: Record<string, string> = IDENTITY) => client.send(url, { method: "GET", headers });

    for (const scheme of ["http", "https"] as const) {
      const base = () => (scheme === "http" ? nginx.http : nginx.https);

      test(`${scheme}: a static JSON body framed by Content-Length`, async () => {
        const uri = `/static/data.json?case=length-${kind}-${scheme}`;
        const a = await get(`${base()}${uri}`);
        expect(a.status).toBe(200);
        expect(a.ok).toBe(true);
        expect(a.headers.get("content-length")).toBe(String(nginx.staticBody.length));
        expect(await a.text()).toBe(nginx.staticBody);
        expect(await logOf(uri)).toMatchObject([{ status: 200, gzipped: false }]);
      });

      test(`${scheme}: a gzip body nginx compresses on the fly (chunked) arrives decoded`, async () => {
        const uri = `/static/data.json?case=gzip-${kind}-${scheme}`;
        const a = await get(`${base()}${uri}`, GZIP);
        expect(a.status).toBe(200);
        expect(await tapText(a).ended()).toBe(nginx.staticBody);
        expect(await logOf(uri)).toMatchObject([{ status: 200, gzipped: true }]);
      });

      test(`${scheme}: a chunked body nginx relays from its upstream`, async () => {
        const a = await get(`${base()}/chunked?case=${kind}-${scheme}`);
        expect(a.status).toBe(200);
        expect(JSON.parse(await a.text()).choices[0].message.content).toBe("hello from node");
      });

      test(`${scheme}: keep-alive: consecutive requests share one connection`, async () => {
        const uris = [1, 2, 3].map((i) => `/static/data.json?case=keepalive-${kind}-${scheme}-${i}`);
        for (const uri of uris) expect(await (await get(`${base()}${uri}`)).text()).toBe(nginx.staticBody);
        const lines = await Promise.all(uris.map(async (u) => (await logOf(u))[0]!));
        expect(new Set(lines.map((l) => l.connection)).size).toBe(1);
        expect(lines[1]!.requests).toBe(lines[0]!.requests + 1);
        expect(lines[2]!.requests).toBe(lines[0]!.requests + 2);
      });

      test(`${scheme}: 4xx and 5xx answers keep their status and JSON body`, async () => {
        const missing = await get(`${base()}/error/404`);
        expect([missing.status, missing.ok]).toEqual([404, false]);
        expect(JSON.parse(await missing.text())).toEqual({ error: { message: "no such model" } });
        const overloaded = await get(`${base()}/error/503`);
        expect(overloaded.status).toBe(503);
        expect(JSON.parse(await overloaded.text())).toEqual({ error: { message: "overloaded" } });
      });

      for (const encoding of ["identity", "gzip"] as const) {
        test(`${scheme}: an SSE stream (${encoding}) is read event by event, the first before the last is sent`, async () => {
          const id = `${kind}-${scheme}-${encoding}`;
          const a = await get(`${base()}/sse?id=${id}`, { accept: "text/event-stream", "accept-encoding": encoding });
          expect(a.status).toBe(200);
          const body = tapText(a);
          // The origin holds the rest of the stream until the gate opens: only a client that hands
          // pieces on as they arrive sees the first event now.
          await body.seen(`"n":1`);
          expect(body.text()).not.toContain(`"n":2`);
          await node.release(id);
          const all = await body.ended();
          expect(all).toContain(`data: {"n":2}`);
          expect(all.trimEnd().endsWith("data: [DONE]")).toBe(true);
          expect(await logOf(`/sse?id=${id}`)).toMatchObject([{ status: 200, gzipped: encoding === "gzip" }]);
        });
      }
    }

    test("Connection: close (keepalive_timeout 0): each request gets a connection of its own, none fails", async () => {
      const uris = [1, 2, 3].map((i) => `/static/data.json?case=close-${kind}-${i}`);
      for (const uri of uris) {
        const a = await get(`${nginx.close}${uri}`);
        expect(a.headers.get("connection")?.toLowerCase()).toBe("close");
        expect(await a.text()).toBe(nginx.staticBody);
      }
      const lines = await Promise.all(uris.map(async (u) => (await logOf(u))[0]!));
      expect(new Set(lines.map((l) => l.connection)).size).toBe(3);
      expect(lines.map((l) => l.requests)).toEqual([1, 1, 1]);
    });

    test("https: a server whose CA the client was not given is refused", async () => {
      const untrusting = createUpstreamClient(kind);
      try {
        await expect(untrusting.send(`${nginx.https}/static/data.json`, { method: "GET" })).rejects.toMatchObject({
          code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
        });
      } finally {
        untrusting.close();
      }
    });
  });
});
