// `serve` with SWITCHYARD_TUNING=off (or --tuning off) runs plain Bun: no re-execution for the runtime
// settings, one start-up line naming the knobs it ignores, and no memory governor's counters at shutdown.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN, eventually, runCli, spawnServer, type ServerProcess } from "../support/spawn";
import { FETCH_MAX_VAR, GC_TIMER_VAR, PURGE_INTERVAL_VAR } from "../../src/platform/tuning/runtime-env";

const dir = mkdtempSync(join(tmpdir(), "switchyard-tuning-"));
const running: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop("SIGKILL")));
  rmSync(dir, { recursive: true, force: true });
});

const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
const logLines = (s: ServerProcess) =>
  s
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
/** The shutdown line, once the child's output has been read to it (it may trail the exit). */
async function stoppedLine(s: ServerProcess): Promise<Record<string, unknown> | undefined> {
  await eventually(() => logLines(s).some((l) => l.msg === "stopped"), 5_000, 10);
  return logLines(s).find((l) => l.msg === "stopped");
}

test.if(process.platform === "linux")(
  "SWITCHYARD_TUNING=off: no re-execution, one line naming the ignored knob, no governor at shutdown",
  async () => {
    const s = await spawnServer({ DATABASE_URL: `sqlite:${dir}/a.db`, SWITCHYARD_TUNING: "off", SWITCHYARD_UPSTREAM_CLIENT: "sockets" });
    running.push(s);
    const env = environ(s.proc.pid);
    expect(env.some((e) => [PURGE_INTERVAL_VAR, GC_TIMER_VAR, FETCH_MAX_VAR].some((v) => e.startsWith(`${v}=`)))).toBe(false);
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    const off = logLines(s).filter((l) => String(l.msg).includes("SWITCHYARD_TUNING=off"));
    expect(off).toHaveLength(1);
    expect(off[0]!.ignored).toBe("SWITCHYARD_UPSTREAM_CLIENT");
    // Plain Bun's fetch sends 256 requests at once at most: said once, with the variable that raises it.
    const cap = logLines(s).filter((l) => String(l.msg).includes(FETCH_MAX_VAR));
    expect(cap).toHaveLength(1);
    expect(cap[0]!.level).toBe("warn");
    expect(await s.stop("SIGTERM")).toBe(0);
    const stopped = await stoppedLine(s);
    expect(stopped).toBeDefined();
    expect(stopped!.gc).toBeUndefined();
  },
  30_000,
);

test.if(process.platform === "linux")(
  "with tuning on, by contrast, the governor runs and the shutdown line carries its counters",
  async () => {
    const s = await spawnServer({ DATABASE_URL: `sqlite:${dir}/on.db`, SWITCHYARD_TUNING: "on" });
    running.push(s);
    expect(await s.stop("SIGTERM")).toBe(0);
    expect(logLines(s).some((l) => String(l.msg).includes("SWITCHYARD_TUNING=off"))).toBe(false);
    expect(logLines(s).some((l) => String(l.msg).includes(FETCH_MAX_VAR))).toBe(false);
    expect((await stoppedLine(s))?.gc).toMatchObject({ checks: expect.any(Number) });
  },
  30_000,
);

test.if(process.platform === "linux")(
  "--tuning off does the same from the command line",
  async () => {
    const s = await spawnServer({ DATABASE_URL: `sqlite:${dir}/b.db`, SWITCHYARD_TUNING: "on", [FETCH_MAX_VAR]: "1000" }, [
      process.execPath,
      MAIN,
      "--tuning",
      "off",
    ]);
    running.push(s);
    const env = environ(s.proc.pid);
    expect(env.some((e) => e.startsWith(`${PURGE_INTERVAL_VAR}=`))).toBe(false);
    expect(logLines(s).filter((l) => String(l.msg).includes("SWITCHYARD_TUNING=off"))).toHaveLength(1);
    // Raised by the operator: nothing to say about fetch's limit.
    expect(logLines(s).some((l) => String(l.msg).includes(FETCH_MAX_VAR))).toBe(false);
    expect(await s.stop("SIGTERM")).toBe(0);
  },
  30_000,
);

test("a bad SWITCHYARD_TUNING stops start-up with one line naming it", async () => {
  const r = await runCli(["serve"], { DATABASE_URL: `sqlite:${dir}/c.db`, SWITCHYARD_TUNING: "fast" });
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toMatch(/^switchyard: SWITCHYARD_TUNING must be 'on'/);
});
