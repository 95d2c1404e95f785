// Tracing in a real process, from the source and from the compiled binary (the SDK is imported
// dynamically: the bundle must carry it): spans wait in the batch processor (its schedule delay is
// long here) and reach the collector when SIGTERM drains the gateway.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN, ROOT, spawnServer } from "../../support/spawn";
import { generateApiKey } from "../../../src/auth/key-format";
import { SPAN_KIND, startOtlpReceiver } from "./otlp-receiver";

const dir = mkdtempSync(join(tmpdir(), "switchyard-otel-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function tracedShutdown(cmd: string[], name: string): Promise<void> {
  const receiver = await startOtlpReceiver();
  const adminKey = generateApiKey();
  const server = await spawnServer(
    {
      DATABASE_URL: `sqlite:${join(dir, name)}/switchyard.db`,
      SWITCHYARD_ADMIN_KEY: adminKey,
      SWITCHYARD_MASTER_KEY: Buffer.alloc(32, 7).toString("base64"),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "600000",
    },
    cmd,
  );
  try {
    expect(server.output()).toContain('"msg":"tracing on"');
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${adminKey}`,
        "content-type": "application/json",
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
      },
      body: JSON.stringify({ model: "acme/no-such-model", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    // Nothing is exported before the schedule delay, which is ten minutes: only the shutdown flush sends it.
    expect(receiver.exports.length).toBe(0);
    expect(await server.stop("SIGTERM")).toBe(0);
    const span = receiver.spans().find((s) => s.traceId === traceId);
    expect(span?.kind).toBe(SPAN_KIND.SERVER);
    expect(span?.parentSpanId).toBe("00f067aa0ba902b7");
    expect(span?.attributes["error.type"]).toEqual(expect.any(String));
  } finally {
    if (server.proc.exitCode === null) await server.stop("SIGKILL");
    await receiver.stop();
  }
}

test("from the source: SIGTERM flushes the batched spans", async () => {
  await tracedShutdown([process.execPath, MAIN], "src");
}, 30_000);

test("from the compiled binary: the SDK is in the bundle and SIGTERM flushes the spans", async () => {
  const out = join(dir, "switchyard");
  const build = Bun.spawnSync([process.execPath, "scripts/build.ts"], { cwd: ROOT, env: { ...process.env, SWITCHYARD_BUILD_OUT: out } });
  expect(build.exitCode).toBe(0);
  await tracedShutdown([out], "bin");
}, 60_000);
