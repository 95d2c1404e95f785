// `bun bench/probes/syscalls.ts [--json] [--concurrency N] [KEY=VAL…]`: syscalls per stream (or JSON request) of the bare proxy, the
// minimal JS proxy on sockets and Switchyard, counted by perf tracepoints while the same load runs
// through each, with user and system CPU per unit from /proc. Needs perf with tracepoint access.
// Found this way (2026-11-27, 32 streams): the same calls per stream for the minimal JS proxy and the
// gateway (~22 sendto, ~22 recvfrom, ~4.5 epoll_pwait2; the gateway adds ~1.2 pwrite64 for records),
// while perf (bench/perf-js.ts) charged the gateway's calls up to twice the kernel time of the minimal
// proxy's: the same kernel paths run slower in a process that touches more memory between them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runJson, runStreams, warmUp } from "../load";
import { envArgs, pinSelf, threadStats, ticksToMicros } from "../procs";
import { adminKey, startMock, startTrio, writeConfig } from "../targets";

const json = Bun.argv.includes("--json");
/** `--concurrency N`: connections or streams at once (32 by default, the bench's middle row). */
const at = Bun.argv.indexOf("--concurrency");
const concurrency = at > 0 ? Number(Bun.argv[at + 1]) : 32;
const CALLS = [
  "sendto",
  "recvfrom",
  "epoll_pwait2",
  "epoll_ctl",
  "pwrite64",
  "futex",
  "write",
  "read",
  "writev",
  "madvise",
  "mmap",
  "munmap",
  "openat",
  "close",
  "newfstatat",
  "lseek",
  "getrusage",
];
pinSelf(0);
const dir = mkdtempSync(join(tmpdir(), "sw-sys-"));
const mock = await startMock(json ? 0 : 20, json ? 0 : 5);
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: adminKey() };
const started = await startTrio(mock.url, g, { db: "s.db", env: envArgs() }); // KEY=VAL arguments: the gateway's environment
try {
  for (const s of started) {
    const t = s.target;
    await warmUp(t, { requests: 5000, streams: 2000 });
    const events = CALLS.map((c) => `syscalls:sys_enter_${c}`).join(",");
    const perf = Bun.spawn(["perf", "stat", "-x", ",", "-e", events + ",page-faults,context-switches", "-p", String(t.pid)], {
      stderr: "pipe",
    });
    await Bun.sleep(300);
    const th0 = threadStats(t.pid!);
    const n = json ? (await runJson(t, 10_000, concurrency)).count : (await runStreams(t, concurrency * 25, concurrency)).count;
    const th1 = threadStats(t.pid!);
    perf.kill("SIGINT");
    const text = await new Response(perf.stderr).text();
    let user = 0;
    let sys = 0;
    for (const [k, v] of th1) {
      user += v.user - (th0.get(k)?.user ?? 0);
      sys += v.system - (th0.get(k)?.system ?? 0);
    }
    const counts = text
      .split("\n")
      .map((l) => l.split(","))
      .filter((f) => f.length > 2 && Number(f[0]) > 0)
      .map((f) => `${f[2]!.replace("syscalls:sys_enter_", "")} ${(Number(f[0]) / n).toFixed(2)}`);
    console.log(
      `${s.name}: user ${(ticksToMicros(user) / n).toFixed(0)} µs + sys ${(ticksToMicros(sys) / n).toFixed(0)} µs per unit; ${counts.join(", ")}`,
    );
  }
} finally {
  await Promise.all([...started.map((s) => s.up.child.stop()), mock.child.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
