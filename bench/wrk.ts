// wrk, the saturation section's load generator: found at /usr/bin/wrk (or on PATH), installed from Debian's
// package when the bench runs as root, else the section is skipped with the reason. One run is one wrk
// process pinned to core 0, its request (method, body, headers) and its summary (a JSON line printed by
// the Lua script's done(): counts and the latency histogram's percentiles, so no text is parsed).
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Target } from "./load";
import { pinned, spawnChild } from "./procs";

/** The path of wrk, or why the section cannot run. */
export type WrkFound = { ok: true; path: string; version: string; installed: boolean } | { ok: false; why: string };

function versionOf(path: string): string {
  // `wrk -v` prints its banner and exits 1.
  const r = Bun.spawnSync([path, "-v"], { stdout: "pipe", stderr: "pipe" });
  return /wrk\s+(\S+)/.exec(r.stdout.toString() + r.stderr.toString())?.[1] ?? "unknown version";
}

const found = (): string | null => (existsSync("/usr/bin/wrk") ? "/usr/bin/wrk" : Bun.which("wrk"));

export function ensureWrk(log: (msg: string) => void): WrkFound {
  const path = found();
  if (path) return { ok: true, path, version: versionOf(path), installed: false };
  const how = "install it with `apt-get install -y wrk` (Debian/Ubuntu, as root) and run the bench again";
  if (process.getuid?.() !== 0) return { ok: false, why: `wrk is not installed and the bench is not root: ${how}` };
  if (!Bun.which("apt-get")) return { ok: false, why: `wrk is not installed and there is no apt-get: ${how}` };
  const install = () =>
    Bun.spawnSync(["apt-get", "install", "-y", "wrk"], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  log("wrk is missing: installing it (apt-get install -y wrk, running as root)…");
  let r = install();
  if (r.exitCode !== 0) {
    // Package lists may be missing or stale on a fresh machine.
    log("apt-get install failed: running apt-get update, then installing again…");
    Bun.spawnSync(["apt-get", "update"], { stdout: "ignore", stderr: "ignore" });
    r = install();
  }
  const now = found();
  if (r.exitCode !== 0 || !now)
    return { ok: false, why: `apt-get install -y wrk failed (${r.exitCode}): ${r.stderr.toString().trim().slice(-300)}` };
  log(`installed ${now}`);
  return { ok: true, path: now, version: versionOf(now), installed: true };
}

/** One wrk run's summary (latencies in ms). */
export interface WrkRun {
  requests: number;
  durationS: number;
  rps: number;
  p50: number;
  p99: number;
  /** Responses with a status above 399 (wrk's "Non-2xx or 3xx responses"). */
  non2xx: number;
  /** connect + read + write + timeout socket errors. */
  socketErrors: number;
  bytes: number;
}

/** A Lua long string: the body and headers are ASCII JSON and keys, never holding the closing bracket. */
function lua(s: string): string {
  if (s.includes("]==]")) throw new Error("a wrk script string holds ]==]");
  return `[==[${s}]==]`;
}

/** Writes the Lua script that sends `body` with the target's headers and prints the summary as JSON. */
export function writeScript(dir: string, name: string, t: Target, body: string): string {
  const headers = Object.entries(t.headers).map(([k, v]) => `wrk.headers[ ${lua(k)} ] = ${lua(v)}`);
  const script = [
    `wrk.method = "POST"`,
    `wrk.body = ${lua(body)}`,
    ...headers,
    `function done(summary, latency, requests)`,
    `  local e = summary.errors`,
    `  io.write(string.format('\\nWRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p99_us":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d}\\n',`,
    `    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99), e.status, e.connect, e.read, e.write, e.timeout))`,
    `end`,
  ].join("\n");
  const path = join(dir, `${name}.lua`);
  writeFileSync(path, script + "\n");
  return path;
}

/** Runs wrk (one thread, pinned to core 0 beside the mock) for `seconds` against `url`. */
export async function runWrk(wrk: string, script: string, url: string, connections: number, seconds: number): Promise<WrkRun> {
  const cmd = pinned([wrk, "-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "--latency", "-s", script, url], 0);
  const child = spawnChild("wrk", cmd, {});
  const code = await child.proc.exited;
  // The output pumps may still hold the last bytes after the exit: wait for the summary line, bounded.
  const until = Date.now() + 2_000;
  let line = /WRK_JSON (\{.*\})/.exec(child.output())?.[1];
  while (!line && Date.now() < until) {
    await Bun.sleep(10);
    line = /WRK_JSON (\{.*\})/.exec(child.output())?.[1];
  }
  await child.stop();
  if (code !== 0 || !line) throw new Error(`wrk exited ${code}: ${child.output().slice(-1000)}`);
  const j = JSON.parse(line) as Record<string, number>;
  const durationS = j.duration_us! / 1e6;
  return {
    requests: j.requests!,
    durationS,
    rps: j.requests! / durationS,
    p50: j.p50_us! / 1000,
    p99: j.p99_us! / 1000,
    non2xx: j.status!,
    socketErrors: j.connect! + j.read! + j.write! + j.timeout!,
    bytes: j.bytes!,
  };
}
