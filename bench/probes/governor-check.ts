// `bun bench/probes/governor-check.ts [--stream] [KEY=VALUE …]`: what the memory governor's reads cost
// inside a gateway under load (JSON at 32 connections, or 32 streams): a preloaded sampler times, every
// 100 ms as the governor's checks run, bun:jsc's heapSize(), process.memoryUsage() and a read of
// /proc/thread-self/schedstat, and prints the means. In a quiet micro-benchmark they cost 31, 12 and 11
// µs; in a gateway under load, with the caches full of its own work, far more.
// Found this way (2026-11-29, session 34): heapSize() 56–77 µs, memoryUsage() 117–199, the schedstat read
// 30–53, so a check that read all three (the governor until then) cost ~200–300 µs, ~3 % of the gateway's
// CPU at 8 streams; the governor now reads `heapUsed` only after a collection (memory-governor.ts).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runJson, runStreams, warmUp } from "../load";
import { envArgs, waitForOutput } from "../procs";
import { adminKey, gatewayTarget, startGateway, startMock, writeConfig } from "../targets";

const streams = Bun.argv.includes("--stream");
const dir = mkdtempSync(join(tmpdir(), "sy-govcheck-"));
const sampler = join(dir, "sampler.ts");
writeFileSync(
  sampler,
  `import { heapSize } from "bun:jsc";
import { readFileSync } from "node:fs";
const sum = { heapSize: 0, memoryUsage: 0, schedstat: 0, n: 0 };
const time = (f) => { const t = performance.now(); f(); return (performance.now() - t) * 1000; };
setInterval(() => {
  sum.heapSize += time(() => heapSize());
  sum.memoryUsage += time(() => process.memoryUsage());
  sum.schedstat += time(() => readFileSync("/proc/thread-self/schedstat", "latin1"));
  sum.n++;
}, 100).unref();
process.on("SIGUSR2", () => console.error("@@check " + JSON.stringify(sum)));
`,
);
const mock = await startMock(20, 5);
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: adminKey() };
const gw = await startGateway(g, { bunFlags: ["--preload", sampler], env: envArgs() });
const target = gatewayTarget(gw, g.adminKey);
try {
  await warmUp(target, { requests: 3_000, streams: 500 });
  if (streams) await runStreams(target, 6_000, 32);
  else await runJson(target, 60_000, 32);
  process.kill(gw.child.pid!, "SIGUSR2");
  const sum = JSON.parse(await waitForOutput(gw.child, /@@check (\{.*\})/)) as Record<string, number>;
  const n = sum.n!;
  console.log(`mean over ${n} samples under ${streams ? "32 streams" : "JSON at 32 connections"} (µs):`);
  for (const k of ["heapSize", "memoryUsage", "schedstat"]) console.log(`${(sum[k]! / n).toFixed(1).padStart(8)}  ${k}`);
} finally {
  await Promise.all([gw.child.stop(), mock.child.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
