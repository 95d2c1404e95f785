// `bun bench/probes/peak-rss.ts [--a-root DIR] [--rounds 3] [--concurrency 128]`: the peak resident memory
// (VmHWM) of two gateways — another checkout's (or this one's) and this one's — under the same JSON load,
// loaded in turn after the same warm-up (each peak reset after it: the warm-up runs JSON and streams at once,
// load.ts): what a change does to the bench's "lifetime peak" row, which the JSON load at 128 connections sets.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runJson, warmUp, type Target } from "../load";
import { memory, pinSelf, resetPeak } from "../procs";
import { adminKey, startGateway, startMock, writeConfig } from "../targets";

const { values: o } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    "a-root": { type: "string" },
    rounds: { type: "string", default: "3" },
    concurrency: { type: "string", default: "128" },
  },
});
pinSelf(0);
const dir = mkdtempSync(join(tmpdir(), "sw-peak-"));
const mock = await startMock(0, 0);
const key = adminKey();
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: key };
const sides = [
  { name: o["a-root"] ? `A ${o["a-root"]}` : "A (this checkout)", up: await startGateway(g, { db: "a.db", root: o["a-root"] }) },
  { name: "B (this checkout)", up: await startGateway(g, { db: "b.db" }) },
];
try {
  const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
  const targets: Target[] = sides.map((s) => ({
    name: "switchyard",
    url: `${s.up.url}/v1/chat/completions`,
    headers,
    pid: s.up.child.pid,
    expectRouting: true,
  }));
  for (const t of targets) await warmUp(t);
  for (const t of targets) resetPeak(t.pid!);
  for (let r = 0; r < Number(o.rounds); r++) {
    const line: string[] = [];
    for (const [i, t] of targets.entries()) {
      const run = await runJson(t, 24_000, Number(o.concurrency));
      if (run.firstError) throw new Error(run.firstError);
      const m = memory(t.pid!);
      line.push(`${sides[i]!.name}: RSS ${(m.rssKb / 1024).toFixed(1)} MB, peak so far ${(m.hwmKb / 1024).toFixed(1)} MB`);
    }
    console.log(`round ${r + 1}: ${line.join("; ")}`);
  }
} finally {
  for (const s of sides) await s.up.child.stop();
  await mock.child.stop();
  rmSync(dir, { recursive: true, force: true });
}
