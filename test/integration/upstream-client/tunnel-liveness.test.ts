// The socket client's CONNECT tunnel in a process where nothing else keeps Bun's event loop alive: a
// request in flight blocks in the poller rather than spinning, and a tunnel parked idle in the pool does
// not keep the process alive (neither the TLS socket nor the raw one under it). The client runs
// in a child process, because this test's own servers would keep the loop alive and hide either fault.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../support/spawn";
import { startProxy, type TestProxy } from "./proxy";
import { makeTestCa, type TestCa } from "./tls";

const WAIT_MS = 300;
let ca: TestCa;
let proxy: TestProxy;
let server: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  ca = makeTestCa();
  proxy = await startProxy();
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: { cert: readFileSync(ca.certFile, "utf8"), key: readFileSync(ca.keyFile, "utf8") },
    async fetch() {
      await Bun.sleep(WAIT_MS);
      return new Response("late answer");
    },
  });
});
afterAll(async () => {
  void server?.stop(true);
  await proxy?.stop();
});

// No client.close(): the process must end on its own with the tunnel idle in the pool.
const CHILD = `
import { readFileSync } from "node:fs";
import { createHttp1Client } from ${JSON.stringify(join(ROOT, "src/platform/tuning/http1/client.ts"))};
const client = createHttp1Client({ ca: readFileSync(process.env.CA_FILE, "utf8"), proxy: { httpsProxy: process.env.PROXY } });
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
await (await client.fetch(process.env.URL, { method: "GET" })).text();
const c0 = cpu();
const t0 = performance.now();
const text = await (await client.fetch(process.env.URL, { method: "GET" })).text();
console.log(JSON.stringify({ text, cpuMs: cpu() - c0, wallMs: performance.now() - t0, stats: client.stats() }));
`;

test("a tunnelled request waits in the poller, and an idle tunnel lets the process end", async () => {
  const child = Bun.spawn([process.execPath, "-e", CHILD], {
    env: { ...process.env, URL: `https://localhost:${server.port}/`, PROXY: proxy.url, CA_FILE: ca.caFile },
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => child.kill(), 10_000);
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(killer);
  // Killed (a tunnel keeping the process alive) would be a signal exit, not 0.
  expect(code, err).toBe(0);
  const r = JSON.parse(out.trim().split("\n").at(-1)!) as { text: string; cpuMs: number; wallMs: number; stats: { opened: number } };
  expect(r.text).toBe("late answer");
  expect(r.stats.opened).toBe(1);
  expect(r.wallMs).toBeGreaterThanOrEqual(WAIT_MS * 0.9);
  expect(r.cpuMs).toBeLessThan(r.wallMs / 2);
  expect(proxy.seen.map((s) => s.line)).toEqual([`CONNECT localhost:${server.port} HTTP/1.1`]);
});
