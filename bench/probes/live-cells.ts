// `bun bench/probes/live-cells.ts [--json] [--concurrency N] [units]`: the heap cells one stream (or JSON
// request) makes in a real gateway (source run, socket upstream, the bench's mock and configuration), by
// JSC's type names. The gateway runs with a preloaded sampler and a RAM size so large that JSC does not
// collect inside the measured window; every cell made since the last full collection then still counts
// in heapStats(), so the counts after the load minus those before are what the load allocated. The
// window is checked for collections (BUN_JSC_logGC; Bun's GC timer is off, yet an eden collection
// sometimes still runs: the probe then says so, and a second run gives the counts). Unlike probe-alloc.ts
// (bytes, in process, upstream stubbed), this sees the socket client and the mock's real wire format.
// Found this way (2026-11-29, session 32): ~258 cells per JSON request at 32 connections (96 objects, 44
// strings, 41 scopes, 25 functions, 23 arrays, 11 promises, 7 async frames) and ~445 per stream at 8 (127
// objects, 77 strings, 59 scopes, 53 functions, 48 byte arrays, 34 arrays, 16 promises, 10 async frames).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runJson, runStreams, warmUp } from "../load";
import { adminKey, gatewayTarget, startGateway, startMock, writeConfig } from "../targets";

const json = Bun.argv.includes("--json");
const at = Bun.argv.indexOf("--concurrency");
const concurrency = at > 0 ? Number(Bun.argv[at + 1]) : 8;
const units = Number(Bun.argv.slice(2).find((a, i, all) => /^\d+$/.test(a) && all[i - 1] !== "--concurrency") ?? (json ? 400 : 200));

const dir = mkdtempSync(join(tmpdir(), "sy-cells-"));
const sampler = join(dir, "sampler.ts");
// SIGUSR1: two full collections, then the counts; SIGUSR2: the counts again, and the difference printed.
writeFileSync(
  sampler,
  `import { fullGC, heapStats } from "bun:jsc";
let before = {};
const counts = () => ({ ...heapStats().objectTypeCounts });
process.on("SIGUSR1", () => { fullGC(); fullGC(); console.error("@@cells-start"); before = counts(); });
process.on("SIGUSR2", () => {
  const after = counts();
  console.error("@@cells-end");
  const diff = {};
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) diff[k] = (after[k] ?? 0) - (before[k] ?? 0);
  console.error("@@cells " + JSON.stringify(diff));
});
`,
);
const mock = await startMock(20, 5);
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: adminKey() };
const gw = await startGateway(g, {
  bunFlags: ["--preload", sampler],
  env: {
    BUN_JSC_logGC: "1",
    BUN_JSC_forceRAMSize: String(8 << 30),
    BUN_JSC_largeHeapSize: String(256 << 20),
    SWITCHYARD_HEAP_LIMIT_MB: "0",
    BUN_GC_TIMER_DISABLE: "1",
  },
});
const target = gatewayTarget(gw, g.adminKey);
try {
  await warmUp(target, { requests: 3_000, streams: 1_000 });
  const pid = gw.child.pid!;
  // The load generator's own connections are made during the warm-up; a short run first settles them.
  if (json) await runJson(target, 200, concurrency);
  else await runStreams(target, 50, concurrency);
  process.kill(pid, "SIGUSR1");
  await waitFor(() => gw.child.output().includes("@@cells-start"));
  if (json) await runJson(target, units, concurrency);
  else await runStreams(target, units, concurrency);
  process.kill(pid, "SIGUSR2");
  await waitFor(() => /@@cells \{/.test(gw.child.output()));
  const out = gw.child.output();
  const start = out.lastIndexOf("@@cells-start");
  const window = start < 0 ? "" : out.slice(start, out.lastIndexOf("@@cells-end"));
  const collections = start < 0 ? -1 : (window.match(/: START /g) ?? []).length;
  const diff = JSON.parse(/@@cells (\{.*\})/.exec(out.slice(out.lastIndexOf("@@cells {") - 1))![1]!) as Record<string, number>;
  if (process.env.LIVE_CELLS_LOG)
    console.log(
      window
        .split("\n")
        .filter((l) => l.includes("START") || l.includes("Requesting"))
        .join("\n"),
    );
  const rows = Object.entries(diff)
    .map(([k, v]) => [k, v / units] as const)
    .filter(([, v]) => Math.abs(v) >= 0.5)
    .sort((a, b) => b[1] - a[1]);
  let total = 0;
  for (const [k, v] of rows) {
    total += v;
    console.log(`${v.toFixed(1).padStart(8)}  ${k}`);
  }
  console.log(`${total.toFixed(1).padStart(8)}  cells per ${json ? "request" : "stream"} (${units} at ${concurrency})`);
  if (collections !== 0)
    console.log(
      `(collections inside the window: ${collections < 0 ? "unknown, the log was cut" : collections}; counts are low: use fewer units)`,
    );
} finally {
  await Promise.all([gw.child.stop(), mock.child.stop()]);
  rmSync(dir, { recursive: true, force: true });
}

async function waitFor(ok: () => boolean, deadlineMs = 10_000): Promise<void> {
  const end = performance.now() + deadlineMs;
  while (!ok()) {
    if (performance.now() > end) throw new Error("the sampler did not answer");
    await Bun.sleep(10);
  }
}
