// Runs Switchyard as a user would: a child process (src/main.ts through bun, or the compiled binary).
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");
export const MAIN = join(ROOT, "src", "main.ts");

/** The environment every child starts with; SWITCHYARD_TUNING passes through (`SWITCHYARD_TUNING=off npm test`: plain Bun). */
function baseEnv(): Record<string, string> {
  const tuning = process.env.SWITCHYARD_TUNING;
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...(tuning ? { SWITCHYARD_TUNING: tuning } : {}) };
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a CLI command to completion. `cmd` defaults to `bun src/main.ts`. */
export async function runCli(args: string[], env: Record<string, string>, cmd: string[] = [process.execPath, MAIN]): Promise<Ran> {
  const p = Bun.spawn([...cmd, ...args], {
    env: { ...baseEnv(), ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

export interface ServerProcess {
  url: string;
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** Starts `serve` on port 0 and waits (with a deadline) for its "listening" log line. */
export async function spawnServer(
  env: Record<string, string>,
  cmd: string[] = [process.execPath, MAIN],
  deadlineMs = 20_000,
): Promise<ServerProcess> {
  const proc = Bun.spawn([...cmd, "serve"], {
    env: { ...baseEnv(), PORT: "0", HOST: "127.0.0.1", ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  let out = "";
  const decoder = new TextDecoder();
  const pump = async (s: ReadableStream<Uint8Array>) => {
    const reader = s.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      out += decoder.decode(value, { stream: true });
    }
  };
  void pump(proc.stdout);
  void pump(proc.stderr);
  const until = Date.now() + deadlineMs;
  let port: number | undefined;
  while (Date.now() < until && port === undefined) {
    const m = /"msg":"listening".*?"port":(\d+)/.exec(out);
    if (m) port = Number(m[1]);
    else if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${out}`);
    else await Bun.sleep(20);
  }
  if (port === undefined) {
    proc.kill();
    throw new Error(`server did not start in time: ${out}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    proc,
    output: () => out,
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      return proc.exited;
    },
  };
}

/** Polls fn until it returns true or the deadline passes. */
export async function eventually(fn: () => Promise<boolean> | boolean, deadlineMs = 5_000, everyMs = 50): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (await fn()) return true;
    await Bun.sleep(everyMs);
  }
  return fn();
}
