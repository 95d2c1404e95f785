// SIGTERM during traffic: in-flight requests and streams finish, the queue is drained, exit code 0.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database as BunSqlite } from "bun:sqlite";
import { startMockUpstream } from "../../support/mock-upstream";
import { gatewayConfig } from "../../support/gateway";
import { GENEROUS_LIMITS, writeTempConfig } from "../../support/server";
import { spawnServer } from "../../support/spawn";
import { generateApiKey } from "../../../src/auth/key-format";

const dir = mkdtempSync(join(tmpdir(), "switchyard-term-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("kill -TERM during traffic: in-flight requests complete and every record is on disk afterwards", async () => {
  const mock = await startMockUpstream();
  mock.setScript({ route: "chat" }, { kind: "reply", text: "one two three four five six seven eight", gapMs: 60 });
  const key = generateApiKey();
  const db = join(dir, "db.sqlite");
  const server = await spawnServer({
    DATABASE_URL: `sqlite:${db}`,
    SWITCHYARD_ADMIN_KEY: key,
    SWITCHYARD_CONFIG: writeTempConfig({ ...gatewayConfig(mock), limits: GENEROUS_LIMITS }),
  });
  try {
    const call = (stream: boolean, i: number) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-request-id": `term-${i}` },
        body: JSON.stringify({ model: "acme/openai-only", stream, messages: [{ role: "user", content: "x" }] }),
      }).then(async (r) => ({ status: r.status, text: await r.text() }));
    const inflight = Array.from({ length: 12 }, (_, i) => call(i % 2 === 0, i));
    await mock.waitForRequests(12, 5_000);
    server.proc.kill("SIGTERM");
    const done = await Promise.all(inflight);
    expect(done.map((d) => d.status)).toEqual(Array(12).fill(200));
    for (const [i, d] of done.entries()) if (i % 2 === 0) expect(d.text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(await server.proc.exited).toBe(0);
    const rows = new BunSqlite(db).query("SELECT request_id, success FROM request_records").all() as {
      request_id: string;
      success: number;
    }[];
    expect(rows.map((r) => r.request_id).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `term-${i}`).sort());
    expect(rows.every((r) => r.success === 1)).toBe(true);
  } finally {
    server.proc.kill("SIGKILL");
    await mock.stop();
  }
}, 30_000);
