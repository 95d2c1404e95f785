// How an operator makes the gateway trust a private CA: NODE_EXTRA_CA_CERTS, which Bun reads at start-up
// and adds to its default authorities for both upstream clients (the socket client's TLS and fetch).
// Each client runs in a child process given the variable, or not, against an https server of the test CA.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../support/spawn";
import { makeTestCa, type TestCa } from "./tls";

let ca: TestCa;
let server: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  ca = makeTestCa();
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: { cert: readFileSync(ca.certFile, "utf8"), key: readFileSync(ca.keyFile, "utf8") },
    fetch: () => Response.json({ trusted: true }),
  });
});
afterAll(() => void server?.stop(true));

const CHILD = `
import { createUpstreamClient } from ${JSON.stringify(join(ROOT, "src/platform/tuning/upstream-client.ts"))};
const client = createUpstreamClient(process.env.KIND);
try {
  const a = await client.send(process.env.URL, { method: "GET" });
  console.log(await a.text());
} catch (err) {
  console.log(JSON.stringify({ refused: err.code ?? String(err) }));
} finally {
  client.close();
}
`;

async function run(kind: string, env: Record<string, string>): Promise<unknown> {
  const child = Bun.spawn([process.execPath, "-e", CHILD], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", KIND: kind, URL: `https://localhost:${server.port}/`, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(code, err).toBe(0);
  return JSON.parse(out.trim().split("\n").at(-1)!);
}

describe.each(["sockets", "fetch"])("NODE_EXTRA_CA_CERTS with the %s client", (kind) => {
  test("a server whose CA it names is trusted; without it the same server is refused", async () => {
    expect(await run(kind, { NODE_EXTRA_CA_CERTS: ca.caFile })).toEqual({ trusted: true });
    expect(await run(kind, {})).toEqual({ refused: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" });
  });
});
