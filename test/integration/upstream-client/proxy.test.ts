// HTTP(S)_PROXY and NO_PROXY, the same cases for both clients: a proxy started here (proxy.ts) records what
// goes through it; http targets go to it in absolute form, https ones through a CONNECT tunnel, and
// NO_PROXY's hosts straight to nginx (whose access log shows every request that reached it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createUpstreamClient, type UpstreamClient } from "../../../src/platform/tuning/upstream-client";
import { canRunNginx, startNginx, type Nginx } from "./nginx";
import { startNodeServer, type NodeServer } from "./node-server";
import { startProxy, type TestProxy } from "./proxy";
import { makeTestCa, type TestCa } from "./tls";
import { tapText } from "./read";
import { eventually } from "../../support/spawn";
import { readFileSync } from "node:fs";

const KINDS = ["sockets", "fetch"] as const;
const IDENTITY = { "accept-encoding": "identity" };

let ca: TestCa;
let node: NodeServer;
let nginx: Nginx;

describe.skipIf(!canRunNginx)("upstream clients through an HTTP proxy", () => {
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
    let proxy: TestProxy;
    let client: UpstreamClient;
    // "localhost" goes through the proxy; 127.0.0.1 (the same servers) is NO_PROXY's.
    const proxied = (scheme: "http" | "https") => `${scheme}://localhost:${scheme === "http" ? nginx.ports.http : nginx.ports.https}`;
    const direct = (scheme: "http" | "https") => `${scheme}://127.0.0.1:${scheme === "http" ? nginx.ports.http : nginx.ports.https}`;
    // nginx logs a request as it finishes it, which may be just after the client has the body.
    const reached = (uri: string) => eventually(() => nginx.log().some((l) => l.uri === uri), 5_000, 10);
    const body = async (url: string) => {
      const a = await client.send(url, { method: "GET", headers: IDENTITY });
      expect(a.status).toBe(200);
      return a.text();
    };

    beforeAll(async () => {
      // A proxy per client: a connection one client left open to it is never the other's.
      proxy = await startProxy();
      client = createUpstreamClient(kind, {
        ca: ca.caPem,
        proxy: { httpProxy: proxy.url, httpsProxy: proxy.url, noProxy: "127.0.0.1, .example.internal" },
      });
      expect(client.kind).toBe(kind);
    });
    afterAll(async () => {
      client.close();
      await proxy.stop();
    });

    test("http: the request goes to the proxy in absolute form", async () => {
      const uri = `/static/data.json?case=proxy-${kind}`;
      expect(await body(`${proxied("http")}${uri}`)).toBe(nginx.staticBody);
      expect(proxy.seen.map((s) => s.line)).toContain(`GET http://localhost:${nginx.ports.http}${uri} HTTP/1.1`);
    });

    test("https: the request goes through a CONNECT tunnel, TLS to the origin inside, kept alive", async () => {
      const uris = [1, 2].map((i) => `/static/data.json?case=tunnel-${kind}-${i}`);
      for (const uri of uris) expect(await body(`${proxied("https")}${uri}`)).toBe(nginx.staticBody);
      const connects = proxy.seen.filter((s) => s.line === `CONNECT localhost:${nginx.ports.https} HTTP/1.1`);
      expect(connects).toHaveLength(1);
      expect(await reached(uris[1]!)).toBe(true);
    });

    test("https: an SSE stream through the tunnel is read event by event", async () => {
      const id = `proxy-${kind}`;
      const a = await client.send(`${proxied("https")}/sse?id=${id}`, { method: "GET", headers: IDENTITY });
      const stream = tapText(a);
      await stream.seen(`"n":1`);
      expect(stream.text()).not.toContain(`"n":2`);
      await node.release(id);
      expect((await stream.ended()).trimEnd().endsWith("data: [DONE]")).toBe(true);
    });

    test("NO_PROXY hosts are reached straight, over http and https", async () => {
      const before = proxy.seen.length;
      for (const scheme of ["http", "https"] as const) {
        const uri = `/static/data.json?case=no-proxy-${kind}-${scheme}`;
        expect(await body(`${direct(scheme)}${uri}`)).toBe(nginx.staticBody);
        expect(await reached(uri)).toBe(true);
      }
      expect(proxy.seen.slice(before)).toEqual([]);
    });

    test("the proxy URL's user:password go as Proxy-Authorization, for absolute-form and CONNECT alike", async () => {
      const withAuth = await startProxy();
      const auth = withAuth.url.replace("http://", "http://gateway:s%40cret@");
      const c = createUpstreamClient(kind, { ca: ca.caPem, proxy: { httpProxy: auth, httpsProxy: auth } });
      try {
        for (const scheme of ["http", "https"] as const) {
          const a = await c.send(`${proxied(scheme)}/static/data.json?case=auth-${kind}`, { method: "GET", headers: IDENTITY });
          expect(await a.text()).toBe(nginx.staticBody);
        }
        expect(withAuth.seen.map((s) => s.authorization)).toEqual([`Basic ${btoa("gateway:s@cret")}`, `Basic ${btoa("gateway:s@cret")}`]);
        expect(withAuth.seen[1]!.line).toStartWith("CONNECT ");
      } finally {
        c.close();
        await withAuth.stop();
      }
    });

    test("a proxy that refuses the tunnel fails the request cleanly", async () => {
      const a = client.send(`https://localhost:1/static/data.json`, { method: "GET" });
      await expect(a).rejects.toBeInstanceOf(Error);
      expect(proxy.seen.map((s) => s.line)).toContain("CONNECT localhost:1 HTTP/1.1");
    });
  });
});

describe.skipIf(!canRunNginx)("upstream clients through an https:// proxy", () => {
  let tlsProxy: TestProxy;
  beforeAll(async () => {
    // Servers of its own: the describe above stopped its ones.
    ca = makeTestCa();
    node = await startNodeServer();
    nginx = await startNginx(ca, node.port);
    tlsProxy = await startProxy({ tls: { cert: readFileSync(ca.certFile, "utf8"), key: readFileSync(ca.keyFile, "utf8") } });
  });
  afterAll(async () => {
    await tlsProxy?.stop();
    await nginx?.stop();
    await node?.stop();
  });

  test("an https:// HTTPS_PROXY makes either choice fetch (TLS inside TLS is more than one socket upgrade), and both kinds of target go through it", async () => {
    for (const kind of KINDS) expect(createUpstreamClient(kind, { proxy: { httpsProxy: tlsProxy.url } }).kind).toBe("fetch");
    const c = createUpstreamClient("sockets", { ca: ca.caPem, proxy: { httpProxy: tlsProxy.url, httpsProxy: tlsProxy.url } });
    try {
      for (const scheme of ["http", "https"] as const) {
        const port = scheme === "http" ? nginx.ports.http : nginx.ports.https;
        const a = await c.send(`${scheme}://localhost:${port}/static/data.json?case=tls-proxy`, { method: "GET", headers: IDENTITY });
        expect(await a.text()).toBe(nginx.staticBody);
      }
      const lines = tlsProxy.seen.map((s) => s.line);
      expect(lines).toContain(`GET http://localhost:${nginx.ports.http}/static/data.json?case=tls-proxy HTTP/1.1`);
      expect(lines).toContain(`CONNECT localhost:${nginx.ports.https} HTTP/1.1`);
    } finally {
      c.close();
    }
  });

  test("the socket client speaks TLS to an https:// HTTP_PROXY itself", async () => {
    const c = createUpstreamClient("sockets", { ca: ca.caPem, proxy: { httpProxy: tlsProxy.url } });
    try {
      expect(c.kind).toBe("sockets");
      const uri = `/static/data.json?case=tls-proxy-sockets-only`;
      const a = await c.send(`http://localhost:${nginx.ports.http}${uri}`, { method: "GET", headers: IDENTITY });
      expect(await a.text()).toBe(nginx.staticBody);
      expect(tlsProxy.seen.map((s) => s.line)).toContain(`GET http://localhost:${nginx.ports.http}${uri} HTTP/1.1`);
    } finally {
      c.close();
    }
  });
});
