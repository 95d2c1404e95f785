// `bun bench/probes/idle-cpu.ts [KEY=VALUE …]`: what an idle gateway costs: CPU per second of a gateway
// (from source, pinned to core 1) that has served 400 streams and then sits idle, in four 5-second
// samples, with its wake-ups per second by thread. KEY=VALUE pairs go to the gateway's environment;
// ROOT=DIR runs another checkout's gateway (a `git worktree` with its node_modules).
// Found this way (2026-11-27, session 20): the memory governor's 100 ms check read /proc/self/stat through
// process.memoryUsage() ten times a second and woke the process as often: 4.5–5.8 ms of CPU per second
// idle before its idle back-off and heapSize() pre-check, ~3.5 after (~2.5 with a 16× back-off). (A round figure such as 2000 or
// 6000 means a thread ended between two samples and its 10 ms ticks were counted instead: see procs.ts.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runStreams } from "../load";
import { cpuMicrosBetween, cpuSample, envArgs, pinSelf, threadStats, type ThreadStat } from "../procs";
import { adminKey, startGateway, startMock, writeConfig } from "../targets";

/** Wake-ups (context switches) per second by thread name, over the threads alive at both samples. */
function wakeupsPerSecond(a: Map<string, ThreadStat>, b: Map<string, ThreadStat>, seconds: number): string {
  const byName = new Map<string, number>();
  for (const [key, t] of b) {
    const before = a.get(key);
    if (!before) continue;
    const name = key.slice(0, key.lastIndexOf("#"));
    const n = t.voluntary + t.involuntary - before.voluntary - before.involuntary;
    byName.set(name, (byName.get(name) ?? 0) + n / seconds);
  }
  return [...byName]
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${name} ${n.toFixed(1)}`)
    .join(", ");
}

pinSelf(0);
const dir = mkdtempSync(join(tmpdir(), "sw-idle-"));
const mock = await startMock(20, 5);
const key = adminKey();
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: key };
const gw = await startGateway(g, { db: "idle.db", env: envArgs(), root: process.env.ROOT });
const pid = gw.child.pid!;
try {
  const target = {
    name: "switchyard" as const,
    url: gw.url + "/v1/chat/completions",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    pid,
    expectRouting: true,
  };
  const served = await runStreams(target, 400, 32);
  if (served.firstFailure) throw new Error(served.firstFailure);
  await Bun.sleep(2_000); // the load's write-behind work and the last collections settle
  for (let i = 0; i < 4; i++) {
    const [c0, w0] = [cpuSample(pid), threadStats(pid)];
    await Bun.sleep(5_000);
    const [c1, w1] = [cpuSample(pid), threadStats(pid)];
    const cpu = (cpuMicrosBetween(c0, c1) / 5).toFixed(0);
    console.log(`idle: ${cpu} µs of CPU per second; wake-ups per second: ${wakeupsPerSecond(w0, w1, 5)}`);
  }
} finally {
  await Promise.all([gw.child.stop(), mock.child.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
