import { describe, expect, test } from "bun:test";
import { batchedLines, createLogger } from "../../../src/platform/logger";

const turn = () => new Promise<void>((r) => setImmediate(r));

describe("log lines", () => {
  test("lines logged in one event-loop turn leave in one write, in order, each ended by a newline", async () => {
    const writes: string[] = [];
    const sink = batchedLines((t) => void writes.push(t));
    sink.write("a");
    sink.write("b");
    sink.write("c");
    expect(writes).toEqual([]);
    await turn();
    await turn();
    expect(writes).toEqual(["a\nb\nc\n"]);
    sink.write("d");
    await turn();
    await turn();
    expect(writes).toEqual(["a\nb\nc\n", "d\n"]);
  });

  test("flush writes what is waiting at once, and nothing when nothing is", async () => {
    const writes: string[] = [];
    const sink = batchedLines((t) => void writes.push(t));
    sink.flush();
    sink.write("x");
    sink.flush();
    expect(writes).toEqual(["x\n"]);
    await turn();
    await turn();
    expect(writes).toEqual(["x\n"]);
  });

  test("a credential-looking field is redacted, whatever else the line carries", () => {
    const lines: string[] = [];
    createLogger("info", (l) => void lines.push(l)).info("request", { request_id: "r1", api_key: "ak_secret", Authorization: "Bearer x" });
    const rec = JSON.parse(lines[0]!);
    expect({ request_id: rec.request_id, api_key: rec.api_key, Authorization: rec.Authorization }).toEqual({
      request_id: "r1",
      api_key: "[redacted]",
      Authorization: "[redacted]",
    });
  });

  test("a process that logs and exits at once still writes its last lines to stdout", async () => {
    const script = `import { createLogger } from ${JSON.stringify(new URL("../../../src/platform/logger.ts", import.meta.url).pathname)};
const log = createLogger("info");
for (let i = 0; i < 3; i++) log.info("line", { i });
process.exit(0);`;
    const p = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    expect(code).toBe(0);
    expect(
      out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).i),
    ).toEqual([0, 1, 2]);
  });
});
