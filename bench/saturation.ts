// The saturation section: wrk (C, far above the Bun client's ~8,000 requests/s) drives the bare proxy,
// Switchyard on SQLite and Switchyard in shared mode (Postgres + Redis) side by side, in alternating
// rounds, at loads that saturate the target's core. Each target is the same kind of process the other
// loads run (the compiled binary, pinned to core 1); wrk and the mock share core 0.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { JSON_BODY, WARMUP, warmUp, type Target } from "./load";
import { STREAM_CHUNKS } from "./mock-upstream";
import { PINNING, cpuMicrosBetween, cpuSample, machineTicks, stealPercent } from "./procs";
import {
  SAT_NAMES,
  renderSaturation,
  summarise,
  updateSaturationReadme,
  type SatLoad,
  type SatLoadResult,
  type SatName,
  type SatRound,
  type SaturationResults,
} from "./saturation-report";
import { createSharedStores, type SharedStores } from "./shared-stores";
import { KINDS } from "./stream-kinds";
import { ROOT, adminKey, kindTarget, startBareProxy, startGateway, writeConfig, type Upstream } from "./targets";
import { ensureWrk, runWrk, writeScript } from "./wrk";

/** Streams at 128 keep ~1,000 a second in flight (each lasts ~120 ms); 512 is past what one core serves. */
export const SAT_LOADS: SatLoad[] = [
  { kind: "json", connections: 32 },
  { kind: "json", connections: 128 },
  { kind: "stream", connections: 128 },
  { kind: "stream", connections: 512 },
];

/** Rounds a multiple of the three targets, so each takes each place in the order equally often. */
const PLANS = {
  quick: { rounds: 3, seconds: 2, leadInSeconds: 1, warmup: { requests: 6_000, streams: 1_536 } },
  full: { rounds: 6, seconds: 5, leadInSeconds: 2, warmup: WARMUP },
};
/** After a round, before its CPU is read: the write-behind queue flushes every 100 ms (as rounds.ts). */
const SETTLE_MS = 300;

export interface SaturationContext {
  binary: string;
  mockUrl: string;
  /** The run's scratch directory (a subdirectory holds this section's files). */
  dir: string;
  quick: boolean;
  ttftMs: number;
  gapMs: number;
  /** The gateways' extra environment (an experiment's KEY=VALUE arguments). */
  env: Record<string, string>;
  log(msg: string): void;
}

/** Each core's busy and total jiffies (/proc/stat cpuN: everything but idle, iowait and steal is busy). */
function coreTicks(): Map<number, { busy: number; total: number }> {
  const out = new Map<number, { busy: number; total: number }>();
  for (const m of readFileSync("/proc/stat", "utf8").matchAll(/^cpu(\d+)\s+(.+)$/gm)) {
    const f = m[2]!.trim().split(/\s+/).map(Number);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    out.set(Number(m[1]), { busy: total - f[3]! - f[4]! - f[7]!, total });
  }
  return out;
}

function busyPercent(a: ReturnType<typeof coreTicks>, b: ReturnType<typeof coreTicks>, core: number): number | null {
  const x = a.get(core);
  const y = b.get(core);
  if (!PINNING || !x || !y || y.total <= x.total) return null;
  return (100 * (y.busy - x.busy)) / (y.total - x.total);
}

/** Shared mode is on and healthy: /readyz says ready and names Redis up (a degraded gateway would measure its fallbacks). */
async function assertShared(url: string, deadlineMs = 5_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const body = (await (await fetch(`${url}/readyz`)).json()) as { status?: string; redis?: { up?: boolean } };
    if (body.status === "ready" && body.redis?.up === true) return;
    if (Date.now() > until) throw new Error(`the shared-mode gateway is not ready on Redis: /readyz ${JSON.stringify(body)}`);
    await Bun.sleep(50);
  }
}

interface SatTarget {
  name: SatName;
  target: Target;
  scripts: Record<SatLoad["kind"], string>;
}

export const skippedSaturation = (quick: boolean, why: string): SaturationResults => ({
  date: new Date().toISOString(),
  mode: quick ? "quick" : "full",
  wrk: null,
  skipped: why,
  settings: {},
  notes: [],
  loads: [],
  failures: [],
});

export async function runSaturation(ctx: SaturationContext): Promise<SaturationResults> {
  const wrk = ensureWrk(ctx.log);
  if (!wrk.ok) {
    ctx.log(`saturation section skipped: ${wrk.why}`);
    return skippedSaturation(ctx.quick, wrk.why);
  }
  const plan = ctx.quick ? PLANS.quick : PLANS.full;
  const dir = join(ctx.dir, "saturation");
  mkdirSync(dir, { recursive: true });
  const g = { dir, configPath: writeConfig(dir, ctx.mockUrl), adminKey: adminKey() };
  const notes: string[] = wrk.installed ? ["wrk was not installed: the bench installed it (apt-get install -y wrk, as root)."] : [];
  const failures: string[] = [];
  const started: Upstream[] = [];
  let stores: SharedStores | null = null;
  try {
    ctx.log("saturation: starting the bare proxy, Switchyard on SQLite and Switchyard on Postgres + Redis…");
    const proxy = await startBareProxy(ctx.mockUrl);
    started.push(proxy);
    const single = await startGateway(g, { binary: ctx.binary, db: "saturation.db", env: ctx.env });
    started.push(single);
    const ups: Partial<Record<SatName, { up: Upstream; key: string | null }>> = {
      proxy: { up: proxy, key: null },
      switchyard: { up: single, key: g.adminKey },
    };
    try {
      stores = await createSharedStores();
      const shared = await startGateway(g, { binary: ctx.binary, env: { ...ctx.env, ...stores.env } });
      started.push(shared);
      await assertShared(shared.url);
      ups.shared = { up: shared, key: g.adminKey };
    } catch (err) {
      const why = `shared mode (Postgres + Redis) not measured: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`;
      notes.push(why);
      ctx.log(why);
    }
    const targets: SatTarget[] = [];
    for (const name of SAT_NAMES) {
      const u = ups[name];
      if (!u) continue;
      const target = kindTarget(name === "proxy" ? "proxy" : "switchyard", u.up.url, u.up.child.pid, u.key, "chat");
      targets.push({
        name,
        target,
        scripts: {
          json: writeScript(dir, `${name}-json`, target, JSON_BODY),
          stream: writeScript(dir, `${name}-stream`, target, KINDS.chat.body),
        },
      });
    }
    // The Bun client's warm-up checks every answer (status, content, routing metadata): a target that answers
    // anything but the real completion fails here, before wrk (which only counts statuses) is trusted with it.
    for (const t of targets) {
      ctx.log(`saturation: warming up ${t.name} (${plan.warmup.requests} requests + ${plan.warmup.streams} streams)…`);
      await warmUp(t.target, plan.warmup);
    }
    const loads: SatLoadResult[] = [];
    for (const load of SAT_LOADS) {
      ctx.log(`saturation: ${load.kind} at ${load.connections} connections, ${plan.rounds} rounds of ${plan.seconds} s…`);
      const one = (t: SatTarget, seconds: number) => runWrk(wrk.path, t.scripts[load.kind], t.target.url, load.connections, seconds);
      for (const t of targets) {
        const lead = await one(t, plan.leadInSeconds);
        if (lead.non2xx + lead.socketErrors > 0)
          failures.push(`${t.name} ${load.kind} c=${load.connections} lead-in: ${lead.non2xx} non-2xx, ${lead.socketErrors} socket errors`);
      }
      const rounds = new Map<SatName, SatRound[]>(targets.map((t) => [t.name, []]));
      const before = machineTicks();
      for (let r = 0; r < plan.rounds; r++) {
        for (let i = 0; i < targets.length; i++) {
          const t = targets[(i + r) % targets.length]!;
          const cpu0 = cpuSample(t.target.pid!);
          const cores0 = coreTicks();
          const run = await one(t, plan.seconds);
          const cores1 = coreTicks();
          await Bun.sleep(SETTLE_MS);
          const us = cpuMicrosBetween(cpu0, cpuSample(t.target.pid!));
          rounds.get(t.name)!.push({
            requests: run.requests,
            rps: run.rps,
            p50: run.p50,
            p99: run.p99,
            cpuUsPerRequest: run.requests > 0 ? us / run.requests : NaN,
            non2xx: run.non2xx,
            socketErrors: run.socketErrors,
            targetCoreBusy: busyPercent(cores0, cores1, 1),
            loadCoreBusy: busyPercent(cores0, cores1, 0),
          });
          if (run.non2xx + run.socketErrors > 0)
            failures.push(
              `${t.name} ${load.kind} c=${load.connections} round ${r + 1}: ${run.non2xx} non-2xx, ${run.socketErrors} socket errors`,
            );
        }
      }
      loads.push({
        ...load,
        targets: Object.fromEntries([...rounds].map(([n, rs]) => [n, summarise(rs)])),
        stealPercent: stealPercent(before, machineTicks()),
      });
    }
    return {
      date: new Date().toISOString(),
      mode: ctx.quick ? "quick" : "full",
      wrk: wrk.version,
      skipped: null,
      settings: {
        rounds: plan.rounds,
        seconds: plan.seconds,
        leadInSeconds: plan.leadInSeconds,
        warmup: `${plan.warmup.requests} requests + ${plan.warmup.streams} streams per target, Bun client, every answer checked`,
        wrkArgs: "1 thread, --timeout 10s, --latency",
        settleMs: SETTLE_MS,
        streamChunks: STREAM_CHUNKS,
        ttftMs: ctx.ttftMs,
        gapMs: ctx.gapMs,
      },
      notes,
      loads,
      failures,
    };
  } finally {
    await Promise.all(started.map((u) => u.child.stop()));
    if (stores) await stores.cleanup().catch((err: unknown) => ctx.log(`saturation: cleaning up the shared stores failed: ${String(err)}`));
  }
}

/**
 * Writes bench/results/saturation.{md,json} (quick: saturation-quick.*, an experiment: saturation-experiment.*)
 * and, when `readme`, the table between bench/README.md's saturation markers. A skipped section is written too.
 */
export function writeSaturation(
  sat: SaturationResults,
  o: { quick: boolean; experiment: boolean; readme: boolean },
): { md: string; paths: string[] } {
  const md = renderSaturation(sat);
  const base = join(ROOT, "bench/results", `saturation${o.quick ? "-quick" : o.experiment ? "-experiment" : ""}`);
  writeFileSync(`${base}.md`, md);
  writeFileSync(
    `${base}.json`,
    JSON.stringify(sat, (_, v) => (typeof v === "number" && !Number.isInteger(v) ? Math.round(v * 100) / 100 : v), 1) + "\n",
  );
  const paths = [`${base}.md`, `${base}.json`];
  if (o.readme) {
    const doc = join(ROOT, "bench", "README.md");
    writeFileSync(doc, updateSaturationReadme(readFileSync(doc, "utf8"), md));
    paths.push(`${doc} (saturation table)`);
  }
  return { md, paths };
}
