// Child processes for the benchmark and the kernel's accounting of them (/proc). Every child is
// registered and killed when the runner exits, fails or is interrupted.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import type { Subprocess } from "bun";

const children = new Set<Subprocess>();

function killAll(): void {
  for (const c of children) {
    try {
      c.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }
  children.clear();
}
process.on("exit", killAll);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

export const CORES = navigator.hardwareConcurrency;
const hasTaskset = Bun.which("taskset") !== null;
/** Pinning needs two cores: the process under test on core 1, load generator and mock on core 0. */
export const PINNING = CORES >= 2 && hasTaskset;

/** `taskset -c <core> cmd…` where pinning is possible. taskset execs, so the pid stays the command's. */
export function pinned(cmd: string[], core: number): string[] {
  return PINNING ? ["taskset", "-c", String(core), ...cmd] : cmd;
}

/** Moves every thread of this process (the load generator) onto a core. */
export function pinSelf(core: number): void {
  if (PINNING) Bun.spawnSync(["taskset", "-a", "-cp", String(core), String(process.pid)], { stdout: "ignore", stderr: "ignore" });
}

export const CLK_TCK = (() => {
  const r = Bun.spawnSync(["getconf", "CLK_TCK"]);
  const n = Number(r.stdout.toString().trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

export interface Child {
  name: string;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  pid: number;
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export function spawnChild(name: string, cmd: string[], env: Record<string, string>, extra?: { cwd?: string }): Child {
  const proc = Bun.spawn(cmd, {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    cwd: extra?.cwd,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  children.add(proc);
  let out = "";
  const decoder = new TextDecoder();
  const pump = async (s: ReadableStream<Uint8Array>) => {
    const reader = s.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      // Keep only the tail: a chatty child must not grow the runner's memory.
      out = (out + decoder.decode(r.value, { stream: true })).slice(-20_000);
    }
  };
  void pump(proc.stdout);
  void pump(proc.stderr);
  return {
    name,
    proc,
    pid: proc.pid,
    output: () => out,
    async stop(graceMs = 5_000) {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill("SIGTERM");
        const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
        await proc.exited;
        clearTimeout(timer);
      }
      children.delete(proc);
    },
  };
}

/** Waits (with a deadline) for a line matching `re` in the child's output; returns the first group. */
export async function waitForOutput(child: Child, re: RegExp, deadlineMs = 20_000): Promise<string> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    const m = re.exec(child.output());
    if (m) return m[1] ?? m[0];
    if (child.proc.exitCode !== null) throw new Error(`${child.name} exited ${child.proc.exitCode}: ${child.output()}`);
    await Bun.sleep(10);
  }
  throw new Error(`${child.name} not ready in ${deadlineMs} ms: ${child.output()}`);
}

/** Polls `url` until it answers `status`; returns when, or throws at the deadline. */
export async function waitForHttp(url: string, status = 200, deadlineMs = 20_000, everyMs = 5): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === status) return;
    } catch {
      // Not listening yet.
    }
    await Bun.sleep(everyMs);
  }
  throw new Error(`${url} did not answer ${status} in ${deadlineMs} ms`);
}

/** A port nobody listens on right now (bound then released). */
export function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  void s.stop(true);
  return port;
}

/** utime + stime of the whole process (all threads, live and exited), in clock ticks. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // comm (field 2) may hold spaces; fields after its closing parenthesis start at field 3.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(rest[11]) + Number(rest[12]);
}

/**
 * A process's CPU at one moment, to the nanosecond: each thread's time on a CPU (the first field of
 * /proc/<pid>/task/<tid>/schedstat, the count utime and stime are derived from), and the whole process's
 * utime + stime in clock ticks, which also holds threads that have exited.
 */
export interface CpuSample {
  ticks: number;
  threads: Map<string, number>;
}

export function cpuSample(pid: number): CpuSample {
  const threads = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.set(tid, Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]));
    } catch {
      // The thread ended between the listing and the read: counted as ended (below).
    }
  }
  return { ticks: cpuTicks(pid), threads };
}

/**
 * CPU µs between two samples. Clock ticks are 10 ms: a round that costs ~100 ms of CPU reads ±10 % in
 * ticks, so the threads' own nanosecond counts are summed instead (threads started since `a` count in
 * full). If a thread of `a` has ended, its last part is only in the ticks, which are used then.
 */
export function cpuMicrosBetween(a: CpuSample, b: CpuSample): number {
  let ns = 0;
  for (const [tid, at] of a.threads) {
    const bt = b.threads.get(tid);
    if (bt === undefined) return ticksToMicros(b.ticks - a.ticks);
    ns += bt - at;
  }
  for (const [tid, bt] of b.threads) if (!a.threads.has(tid)) ns += bt;
  return ns / 1000;
}

/** One thread's CPU (clock ticks, user and system) and context switches (voluntary: it slept; involuntary: preempted). */
export interface ThreadStat {
  user: number;
  system: number;
  voluntary: number;
  involuntary: number;
}

/** Per thread, keyed "name#tid" (thread names are cut to 15 characters by the kernel). */
export function threadStats(pid: number): Map<string, ThreadStat> {
  const out = new Map<string, ThreadStat>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const count = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
      out.set(`${name}#${tid}`, {
        user: Number(rest[11]),
        system: Number(rest[12]),
        voluntary: count("voluntary_ctxt_switches"),
        involuntary: count("nonvoluntary_ctxt_switches"),
      });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** CPU ticks (user + system) per thread, keyed "name#tid". */
export function threadTicks(pid: number): Map<string, number> {
  return new Map([...threadStats(pid)].map(([k, t]) => [k, t.user + t.system]));
}

/** The machine's CPU time in /proc/stat ticks: all of it, and the part the hypervisor gave to others (steal). */
export function machineTicks(stat = readFileSync("/proc/stat", "utf8")): { total: number; steal: number } {
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user)
  const fields = (/^cpu\s+(.+)$/m.exec(stat)?.[1] ?? "").trim().split(/\s+/).map(Number);
  return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

/** Steal's share of the machine's CPU time between two readings, in per cent (null when nothing elapsed). */
export function stealPercent(a: { total: number; steal: number }, b: { total: number; steal: number }): number | null {
  const total = b.total - a.total;
  return total > 0 ? (100 * (b.steal - a.steal)) / total : null;
}

export function ticksToMicros(ticks: number): number {
  return (ticks * 1e6) / CLK_TCK;
}

export interface Memory {
  rssKb: number;
  hwmKb: number;
}

export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? NaN);
  return { rssKb: kb("VmRSS"), hwmKb: kb("VmHWM") };
}

/** Resets VmHWM to the current RSS (clear_refs "5"), so the next peak belongs to the next load alone. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** `KEY=VALUE` command-line arguments, as environment for the process under test (SWITCHYARD_HEAP_LIMIT_MB=0, say). */
export function envArgs(argv: string[] = Bun.argv.slice(2)): Record<string, string> {
  return Object.fromEntries(argv.filter((a) => /^\w+=/.test(a)).map((a) => [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]));
}

/** `KEY=VALUE,KEY=VALUE…` (an option's value, as ab.ts --a/--b and floor.ts --env take it) as an environment. */
export function envList(spec: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of spec.split(",").filter(Boolean)) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new Error(`expected KEY=VALUE pairs, got '${pair}'`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}
