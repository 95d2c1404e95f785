// `bun bench/probes/eden-survivors.ts [--stream] [--concurrency N] [KEY=VALUE …]`: what one young (eden)
// collection promotes in a real gateway under load, by JSC's type names. It should be about what the
// requests in flight hold (BunRequest ≈ the concurrency); more is garbage a young collection kept (an old
// object it scans still points at it), which then waits in the old generation for the memory governor's
// next full collection. The gateway runs from source with a preloaded sampler: under a running load,
// SIGUSR1 makes two full collections and counts the heap's cells, SIGUSR2 (~150 ms later) one eden
// collection and the counts again.
// Found this way (2026-11-29, JSON at 32 connections): one eden promoted ~600 finished requests (their
// BunRequest, Headers, call context and exchange objects) where ~32 were in flight; the abort sweeper's
// Set, whose entries come and go per request, kept them (abort-sweeper.ts).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runJson, runStreams, warmUp } from "../load";
import { envArgs, waitForOutput } from "../procs";
import { adminKey, gatewayTarget, startGateway, startMock, writeConfig } from "../targets";

const streams = Bun.argv.includes("--stream");
const at = Bun.argv.indexOf("--concurrency");
const concurrency = at > 0 ? Number(Bun.argv[at + 1]) : 32;

const dir = mkdtempSync(join(tmpdir(), "sy-eden-"));
const sampler = join(dir, "sampler.ts");
writeFileSync(
  sampler,
  `import { edenGC, fullGC, heapStats } from "bun:jsc";
let before = {};
const counts = () => ({ ...heapStats().objectTypeCounts });
process.on("SIGUSR1", () => { fullGC(); fullGC(); before = counts(); console.error("@@eden-start"); });
process.on("SIGUSR2", () => {
  edenGC();
  const after = counts();
  const eden = {};
  for (const k in after) eden[k] = after[k] - (before[k] ?? 0);
  console.error("@@eden " + JSON.stringify(eden));
});
`,
);
const mock = await startMock(20, 5);
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: adminKey() };
// The governor off and Bun's GC timer off: no collection but the sampler's inside the window.
const gw = await startGateway(g, {
  bunFlags: ["--preload", sampler],
  env: { SWITCHYARD_HEAP_LIMIT_MB: "0", BUN_GC_TIMER_DISABLE: "1", ...envArgs() },
});
const target = gatewayTarget(gw, g.adminKey);
try {
  await warmUp(target, { requests: 3_000, streams: 1_000 });
  const pid = gw.child.pid!;
  const load = streams ? runStreams(target, 40 * concurrency, concurrency) : runJson(target, 8_000, concurrency);
  await Bun.sleep(300);
  process.kill(pid, "SIGUSR1");
  await waitForOutput(gw.child, /@@eden-start/);
  await Bun.sleep(150);
  process.kill(pid, "SIGUSR2");
  const eden = JSON.parse(await waitForOutput(gw.child, /@@eden (\{.*\})/)) as Record<string, number>;
  await load;
  const rows = Object.keys(eden)
    .filter((k) => Math.abs(eden[k]!) >= 20)
    .sort((a, b) => eden[b]! - eden[a]!);
  console.log(`cells one eden collection promoted (${streams ? "streams" : "JSON requests"}, ${concurrency} in flight)`);
  for (const k of rows) console.log(`${String(eden[k]).padStart(8)}  ${k}`);
} finally {
  await Promise.all([gw.child.stop(), mock.child.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
