// A script that writes records and drains the writer (the record-writer benchmark, a CLI command) must
// exit when its work is done. drain() raced each flush against a Bun.sleep of the whole remaining
// timeout, and the losing sleep kept the event loop alive: a 60 s drain that finished in milliseconds
// held its process for the full 60 s. The writer runs in a child process, because this test runner's
// own loop would hide the wait.
import { expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../../..");
const DRAIN_TIMEOUT_MS = 60_000;

const CHILD = `
import { openDatabase } from ${JSON.stringify(join(ROOT, "src/platform/db/database.ts"))};
import { RecordWriter } from ${JSON.stringify(join(ROOT, "src/metering/record-writer.ts"))};
const db = await openDatabase("sqlite::memory:");
await db.migrate();
const writer = new RecordWriter(db, { flushIntervalMs: 60_000 });
for (let i = 0; i < 10; i++) writer.enqueue({
  recordId: "rec_" + i, requestId: "req_" + i, attempt: 1, workspaceId: "ws_1", createdAt: Date.now(),
  endpoint: "chat_completions", model: "m", modelCanonical: "acme/m", provider: "p", providerModelId: "m",
  apiKeyId: "key_1", apiKeySource: "platform", statusCode: 200, success: true, isFinalAttempt: true,
  latencyMs: 10, ttftMs: null, inputTokens: 1, outputTokens: 1, cachedTokens: 0, reasoningTokens: 0,
  costMicrodollars: 1, routingStrategy: null, errorCode: null, traceId: null, userId: null, tags: null,
  customFields: null, chargeCredits: false,
});
const result = await writer.drain(${DRAIN_TIMEOUT_MS});
await db.close();
console.log(JSON.stringify(result));
`;

test("a drained writer leaves nothing behind that keeps its process alive: the script exits once drain returns", async () => {
  const t0 = performance.now();
  const child = Bun.spawn([process.execPath, "-e", CHILD], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  // Well under the drain timeout: the old code exited only after it (60 s).
  let deadline: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"still running">((r) => (deadline = setTimeout(() => r("still running"), 20_000)));
  const exited = await Promise.race([child.exited, late]);
  clearTimeout(deadline);
  if (exited === "still running") child.kill();
  const out = await new Response(child.stdout).text();
  expect({ exited, out: out.trim() }).toEqual({ exited: 0, out: JSON.stringify({ complete: true, remaining: 0 }) });
  expect(performance.now() - t0).toBeLessThan(DRAIN_TIMEOUT_MS / 2);
}, 30_000);
