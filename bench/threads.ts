// `bun bench/threads.ts [requests] [--stream] [--concurrency N] [KEY=VALUE …]`: where the CPU of the bare proxy and
// of Switchyard goes under the JSON load (32 connections, or N) or, with --stream, 32 (or N) concurrent 20-chunk
// streams, thread by thread (/proc/<pid>/task/*/stat), and how much of
// Switchyard's is garbage collection (JSC's GC log: each eden and full cycle's own duration). KEY=VALUE
// pairs go to the gateway's environment (SWITCHYARD_HEAP_LIMIT_MB=0, say).
//
// Why per thread: Bun's fetch runs on its own "HTTP Client" thread, which costs the bare proxy and the
// gateway alike; the gap is on the JavaScript thread and in the collector's helper threads.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runJson, runStreams, warmUp, type Target } from "./load";
import { freePort, memory, pinSelf, pinned, resetPeak, threadTicks, ticksToMicros, waitForHttp, envArgs } from "./procs";
import { ROOT, adminKey, gatewayEnv, startBareProxy, startMock, writeConfig } from "./targets";

const streams = Bun.argv.includes("--stream");
const at = Bun.argv.indexOf("--concurrency");
const concurrency = at > 0 ? Number(Bun.argv[at + 1]) : 32;
const requests = Number(
  Bun.argv.slice(2).find((a, i, all) => /^\d+$/.test(a) && all[i - 1] !== "--concurrency") ?? (streams ? 3_000 : 40_000),
);
const unit = streams ? "stream" : "request";
/** One round of the load: JSON requests, or streams (the mock's 20 ms to first token, 5 ms gaps, as in the bench). */
const load = (t: Target, n: number) => (streams ? runStreams(t, n, concurrency) : runJson(t, n, concurrency));
const extraEnv = envArgs();

/** The GC log's cycles, by kind: a START line names the kind, its "cycle N ms END" may come lines later. */
function gcCycles(log: string): Map<string, { n: number; ms: number }> {
  const kinds = new Map<string, { n: number; ms: number }>();
  let kind = "?";
  for (const line of log.split("\n")) {
    const start = /=> (\w+Collection)/.exec(line);
    if (start) kind = start[1]!;
    const end = /cycle ([\d.]+)ms END/.exec(line);
    if (!end) continue;
    const k = kinds.get(kind) ?? { n: 0, ms: 0 };
    k.n++;
    k.ms += Number(end[1]);
    kinds.set(kind, k);
  }
  return kinds;
}

async function measure(name: string, t: Target, gcLog?: string): Promise<void> {
  const pid = t.pid!;
  await warmUp(t);
  const logStart = gcLog ? readFileSync(gcLog, "utf8").length : 0;
  const outStart = gcLog ? readFileSync(`${gcLog}.out`, "utf8").length : 0;
  resetPeak(pid);
  const before = threadTicks(pid);
  const run = await load(t, requests);
  const errors = "complete" in run ? run.count - run.complete : run.errors;
  await Bun.sleep(300); // the last write-behind batch
  const after = threadTicks(pid);
  let total = 0;
  const rows: string[] = [];
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    total += d;
    if (d > 0) rows.push(`    ${k.replace(/#\d+$/, "").padEnd(16)} ${(ticksToMicros(d) / run.count).toFixed(1).padStart(6)} µs/${unit}`);
  }
  const mem = memory(pid);
  console.log(
    `${name}: ${(ticksToMicros(total) / run.count).toFixed(1)} µs/${unit} over ${run.count} ${unit}s (${errors} failed); RSS ${(mem.rssKb / 1024).toFixed(0)} MB, peak ${(mem.hwmKb / 1024).toFixed(0)} MB`,
  );
  console.log(rows.join("\n"));
  if (!gcLog) return;
  let gcMs = 0;
  for (const [kind, c] of gcCycles(readFileSync(gcLog, "utf8").slice(logStart))) {
    gcMs += c.ms;
    console.log(`    GC ${kind}: ${c.n} cycles, ${((c.ms * 1000) / run.count).toFixed(1)} µs/${unit}`);
  }
  console.log(`    GC cycles in all: ${((gcMs * 1000) / run.count).toFixed(1)} µs/${unit} (wall time of the cycles; helper threads above)`);
  // JSC writes its compile reports to stderr (the GC log) or stdout, depending on the build: read both.
  const compiles = jitCompiles(readFileSync(gcLog, "utf8").slice(logStart) + readFileSync(`${gcLog}.out`, "utf8").slice(outStart));
  if (compiles.length) console.log(`    JIT compiles during the load (BUN_JSC_report…CompileTimes):\n${compiles.join("\n")}`);
}

/**
 * JSC's "Optimized name#hash:[…] using DFG|FTL… in N ms" lines, summed by function and tier, largest
 * first: a function compiled again and again in a steady load is being thrown away (its assumptions
 * broken) and recompiled, which costs the JIT thread and runs slower code meanwhile.
 */
function jitCompiles(report: string): string[] {
  const by = new Map<string, { n: number; ms: number }>();
  for (const m of report.matchAll(/^Optimized (\S+?):\[.*? using (\w+) .*? in ([\d.]+) ms/gm)) {
    const key = `${m[2]} ${m[1]}`;
    const c = by.get(key) ?? { n: 0, ms: 0 };
    c.n++;
    c.ms += Number(m[3]);
    by.set(key, c);
  }
  return [...by]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 25)
    .map(([k, c]) => `      ${c.ms.toFixed(1).padStart(8)} ms  ${String(c.n).padStart(3)}×  ${k}`);
}

pinSelf(0);
const dir = mkdtempSync(join(tmpdir(), "sw-threads-"));
const mock = streams ? await startMock(20, 5) : await startMock(0, 0);
const key = adminKey();
const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
const bare = await startBareProxy(mock.url);
const port = freePort();
const gcLog = join(dir, "gc.log");
const gateway = Bun.spawn(pinned([process.execPath, join(ROOT, "src/main.ts"), "serve"], 1), {
  env: {
    PATH: process.env.PATH ?? "",
    ...gatewayEnv({ dir, configPath: writeConfig(dir, mock.url), adminKey: key }, port, "bench.db"),
    BUN_JSC_logGC: "1",
    ...extraEnv,
  },
  // JSC's reports (BUN_JSC_report…CompileTimes and the like) go to stdout: kept beside the GC log.
  stdout: Bun.file(`${gcLog}.out`),
  stderr: Bun.file(gcLog),
});
try {
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/readyz`, 200, 30_000, 20);
  const proxy = { name: "proxy", url: `${bare.url}/v1/chat/completions`, headers, pid: bare.child.pid, expectRouting: false } as const;
  await measure("bare proxy", proxy);
  const sy = { name: "switchyard", url: `${url}/v1/chat/completions`, headers, pid: gateway.pid, expectRouting: true } as const;
  await measure("switchyard", sy, gcLog);
} finally {
  gateway.kill();
  await gateway.exited;
  await bare.child.stop();
  await mock.child.stop();
  // THREADS_KEEP_LOG=path keeps the gateway's stderr (GC log) and stdout (JSC reports) as path and path.out.
  const keep = process.env.THREADS_KEEP_LOG;
  if (keep) await Promise.all([Bun.write(keep, Bun.file(gcLog)), Bun.write(`${keep}.out`, Bun.file(`${gcLog}.out`))]);
  rmSync(dir, { recursive: true, force: true });
}
