// `bun run bench:tuning`: what each piece of runtime tuning (docs/tuning.md) buys today. The compiled
// binary runs once per variant — everything on, each piece turned off alone, everything off
// (SWITCHYARD_TUNING=off) — side by side on one mock, in alternating rounds of wrk at saturation
// (JSON at 32 connections, streams at 128), as the saturation section drives them. Reported per variant:
// CPU per request, p99, requests/s and peak RSS, each as a ratio to "all on". Writes
// bench/results/tuning-pieces.{md,json}.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JSON_BODY, warmUp } from "./load";
import { cpuMicrosBetween, cpuSample, memory, resetPeak } from "./procs";
import { KINDS } from "./stream-kinds";
import { ROOT, adminKey, buildBinary, kindTarget, startGateway, startMock, writeConfig, type Upstream } from "./targets";
import { ensureWrk, runWrk, writeScript } from "./wrk";

const VARIANTS: { name: string; what: string; env: Record<string, string> }[] = [
  { name: "all on", what: "the defaults", env: {} },
  { name: "no governor", what: "SWITCHYARD_HEAP_LIMIT_MB=0 (no memory governor, no eden pacing)", env: { SWITCHYARD_HEAP_LIMIT_MB: "0" } },
  {
    name: "fetch upstream",
    what: "SWITCHYARD_UPSTREAM_CLIENT=fetch (Bun's fetch, not the socket client)",
    env: { SWITCHYARD_UPSTREAM_CLIENT: "fetch" },
  },
  {
    name: "purge 100 ms",
    what: "MIMALLOC_PURGE_HOLES_MIN_INTERVAL=100 (mimalloc's default)",
    env: { MIMALLOC_PURGE_HOLES_MIN_INTERVAL: "100" },
  },
  { name: "GC timer on", what: "BUN_GC_TIMER_DISABLE=0 (Bun's own GC timer)", env: { BUN_GC_TIMER_DISABLE: "0" } },
  { name: "all off", what: "SWITCHYARD_TUNING=off (plain Bun)", env: { SWITCHYARD_TUNING: "off" } },
];
const LOADS = [
  { kind: "json" as const, connections: 32 },
  { kind: "stream" as const, connections: 128 },
];
const quick = Bun.argv.includes("--quick");
const ROUNDS = quick ? 2 : 4;
const SECONDS = quick ? 3 : 5;

interface Row {
  variant: string;
  load: string;
  cpuUs: number[];
  p99: number[];
  rps: number[];
  peakMb: number;
  failures: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const wrk = ensureWrk(console.log);
  if (!wrk.ok) throw new Error(wrk.why);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-tuning-"));
  const started: Upstream[] = [];
  try {
    console.log("building the binary…");
    const binary = (await buildBinary(dir)).path;
    // The bench's usual mock: 20 chunks, a little TTFT and gap so that 128 streams stay in flight.
    const mock = await startMock(20, 5);
    started.push(mock);
    const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: adminKey() };
    const gateways = [];
    for (const [i, v] of VARIANTS.entries()) {
      const up = await startGateway(g, { binary, db: `tuning-${i}.db`, env: v.env });
      started.push(up);
      const target = kindTarget("switchyard", up.url, up.child.pid, g.adminKey, "chat");
      const scripts = {
        json: writeScript(dir, `v${i}-json`, target, JSON_BODY),
        stream: writeScript(dir, `v${i}-stream`, target, KINDS.chat.body),
      };
      console.log(`warming up "${v.name}"…`);
      await warmUp(target, { requests: 6_000, streams: 1_536 });
      gateways.push({ v, up, target, scripts });
    }
    const rows: Row[] = [];
    for (const load of LOADS) {
      const byVariant = new Map<string, Row>();
      for (const gw of gateways) {
        resetPeak(gw.up.child.pid);
        await runWrk(wrk.path, gw.scripts[load.kind], gw.target.url, load.connections, 1);
        byVariant.set(gw.v.name, {
          variant: gw.v.name,
          load: `${load.kind} ×${load.connections}`,
          cpuUs: [],
          p99: [],
          rps: [],
          peakMb: 0,
          failures: 0,
        });
      }
      for (let r = 0; r < ROUNDS; r++) {
        console.log(`${load.kind} at ${load.connections}: round ${r + 1} of ${ROUNDS}`);
        for (let i = 0; i < gateways.length; i++) {
          const gw = gateways[(i + r) % gateways.length]!;
          const c0 = cpuSample(gw.up.child.pid);
          const run = await runWrk(wrk.path, gw.scripts[load.kind], gw.target.url, load.connections, SECONDS);
          await Bun.sleep(300);
          const row = byVariant.get(gw.v.name)!;
          row.cpuUs.push(cpuMicrosBetween(c0, cpuSample(gw.up.child.pid)) / Math.max(1, run.requests));
          row.p99.push(run.p99);
          row.rps.push(run.rps);
          row.failures += run.non2xx + run.socketErrors;
        }
      }
      for (const gw of gateways) {
        const row = byVariant.get(gw.v.name)!;
        row.peakMb = memory(gw.up.child.pid).hwmKb / 1024;
        rows.push(row);
      }
    }
    const md = render(rows);
    console.log(md);
    const out = join(ROOT, "bench/results", quick ? "tuning-pieces-quick" : "tuning-pieces");
    writeFileSync(`${out}.md`, md);
    writeFileSync(
      `${out}.json`,
      JSON.stringify({ date: new Date().toISOString(), rounds: ROUNDS, seconds: SECONDS, variants: VARIANTS, rows }, null, 2),
    );
    console.log(`wrote ${out}.md and .json`);
  } finally {
    await Promise.all(started.map((u) => u.child.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

function render(rows: Row[]): string {
  const lines = [
    `# What each tuning piece buys (${new Date().toISOString().slice(0, 10)}, ${ROUNDS} rounds of ${SECONDS} s, medians)`,
    "",
    'Ratios are to "all on" (above 1: turning the piece off costs that much more).',
    "",
    "| load | variant | CPU µs/request | ratio | p99 ms | requests/s | peak RSS MB | ratio | failures |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const load of new Set(rows.map((r) => r.load))) {
    const base = rows.find((r) => r.load === load && r.variant === "all on")!;
    for (const r of rows.filter((x) => x.load === load)) {
      const cpu = median(r.cpuUs);
      lines.push(
        `| ${load} | ${r.variant} | ${cpu.toFixed(1)} | ${(cpu / median(base.cpuUs)).toFixed(2)}× | ${median(r.p99).toFixed(1)} | ${Math.round(median(r.rps))} | ${r.peakMb.toFixed(1)} | ${(r.peakMb / base.peakMb).toFixed(2)}× | ${r.failures} |`,
      );
    }
  }
  lines.push("", ...VARIANTS.map((v) => `- **${v.name}**: ${v.what}`));
  return lines.join("\n") + "\n";
}

await main();
process.exit(0);
