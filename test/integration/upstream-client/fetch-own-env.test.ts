// Bun's fetch reads the proxy variables by itself when a request names no proxy, and applies NO_PROXY to
// one it names; the fetch client decides from config alone (proxy.ts), so both clients route alike. A
// child process gets variables in its environment that its configured settings do not say.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "../../support/spawn";
import { startProxy, type TestProxy } from "./proxy";

let proxy: TestProxy;
let origin: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  proxy = await startProxy();
  origin = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("origin") });
});
afterAll(async () => {
  void origin?.stop(true);
  await proxy?.stop();
});

const CHILD = `
import { createUpstreamClient } from ${JSON.stringify(join(ROOT, "src/platform/tuning/upstream-client.ts"))};
const client = createUpstreamClient(process.env.KIND, process.env.PROXY ? { proxy: { httpProxy: process.env.PROXY } } : {});
console.log(await (await client.send(process.env.URL, { method: "GET" })).text());
client.close();
`;

test.each(["sockets", "fetch"])("%s: a NO_PROXY in the environment that config did not read does not change the route", async (kind) => {
  const before = proxy.seen.length;
  const child = Bun.spawn([process.execPath, "-e", CHILD], {
    env: {
      PATH: process.env.PATH ?? "",
      KIND: kind,
      PROXY: proxy.url,
      URL: `http://localhost:${origin.port}/${kind}`,
      NO_PROXY: "localhost",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(code, err).toBe(0);
  expect(out.trim()).toBe("origin");
  expect(proxy.seen.slice(before).map((s) => s.line)).toEqual([`GET http://localhost:${origin.port}/${kind} HTTP/1.1`]);
});

test.each(["sockets", "fetch"])("%s: ALL_PROXY (which config does not read) sends nothing through a proxy", async (kind) => {
  const before = proxy.seen.length;
  const child = Bun.spawn([process.execPath, "-e", CHILD], {
    env: {
      PATH: process.env.PATH ?? "",
      KIND: kind,
      URL: `http://localhost:${origin.port}/all-${kind}`,
      ALL_PROXY: proxy.url,
      all_proxy: proxy.url,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(code, err).toBe(0);
  expect(out.trim()).toBe("origin");
  expect(proxy.seen.slice(before)).toEqual([]);
});
