// `serve` runs with its runtime settings (src/platform/tuning/runtime-env.ts: the allocator's purge interval, Bun's
// GC timer off): the process a supervisor started is the one that serves (same pid), and it has the
// variables in its environment. Each test asks for tuning on, whatever SWITCHYARD_TUNING the suite runs with.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN, spawnServer, type ServerProcess } from "../support/spawn";
import { FETCH_MAX_VAR, GC_TIMER_VAR, PURGE_INTERVAL_VAR } from "../../src/platform/tuning/runtime-env";

const dir = mkdtempSync(join(tmpdir(), "switchyard-alloc-"));
const running: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop("SIGKILL")));
  rmSync(dir, { recursive: true, force: true });
});

/** The environment the process with this pid was started with (its current image's). */
function environOf(pid: number): Record<string, string> {
  const text = readFileSync(`/proc/${pid}/environ`, "utf8");
  return Object.fromEntries(
    text
      .split("\0")
      .filter((e) => e.includes("="))
      .map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]),
  );
}

test.if(process.platform === "linux")(
  "serve started without the runtime variables serves from the same process with mimalloc's hole sweeps at most once a second and Bun's GC timer off",
  async () => {
    const s = await spawnServer({ SWITCHYARD_TUNING: "on", DATABASE_URL: `sqlite:${dir}/a.db` });
    running.push(s);
    expect(environOf(s.proc.pid)[PURGE_INTERVAL_VAR]).toBe("1000");
    expect(environOf(s.proc.pid)[GC_TIMER_VAR]).toBe("1");
    expect(environOf(s.proc.pid)[FETCH_MAX_VAR]).toBe("65535");
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    expect(await s.stop("SIGTERM")).toBe(0);
  },
  30_000,
);

test.if(process.platform === "linux")(
  "an operator's own values are kept as given",
  async () => {
    const s = await spawnServer({
      SWITCHYARD_TUNING: "on",
      DATABASE_URL: `sqlite:${dir}/b.db`,
      [PURGE_INTERVAL_VAR]: "250",
      [GC_TIMER_VAR]: "0",
      [FETCH_MAX_VAR]: "300",
    });
    running.push(s);
    expect(environOf(s.proc.pid)[PURGE_INTERVAL_VAR]).toBe("250");
    expect(environOf(s.proc.pid)[GC_TIMER_VAR]).toBe("0");
    expect(environOf(s.proc.pid)[FETCH_MAX_VAR]).toBe("300");
    expect(await s.stop("SIGTERM")).toBe(0);
  },
  30_000,
);

test.if(process.platform === "linux")(
  "a variable that is not UTF-8 could not be passed on exactly: no re-execution, the server runs on with the default",
  async () => {
    // The shell puts the byte 0xFF into the environment; JavaScript strings cannot carry it.
    const cmd = ["sh", "-c", `BYTE=$(printf '\\377') exec "$0" "$@"`, process.execPath, MAIN];
    const s = await spawnServer({ SWITCHYARD_TUNING: "on", DATABASE_URL: `sqlite:${dir}/c.db` }, cmd);
    running.push(s);
    expect(readFileSync(`/proc/${s.proc.pid}/environ`).includes(Buffer.from("BYTE=\xff", "latin1"))).toBe(true);
    expect(environOf(s.proc.pid)[PURGE_INTERVAL_VAR]).toBeUndefined();
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    expect(await s.stop("SIGTERM")).toBe(0);
  },
  30_000,
);
