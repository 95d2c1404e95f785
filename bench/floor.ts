// `bun bench/floor.ts [--json] [--concurrency N] [--rounds N]`: what reading every event in JavaScript
// costs before any gateway work. Side by side, each pinned to core 1 and driven in alternating rounds:
// the bench's bare proxy (no JS per chunk), the minimal JS proxy (bench/minimal-proxy.ts: parses every
// SSE event and re-serialises it) on fetch and on Switchyard's socket client, and Switchyard on each
// client. Prints CPU per stream (or JSON request) of each process, the median of the rounds, and its
// split by thread. Found this way (2026-11-26, 32 streams): the minimal proxy costs 1.4–1.7× the bare
// proxy, so the 1.5× target leaves Switchyard almost nothing above the cheapest JS reader.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runJson, runStreams, warmUp, type Target } from "./load";
import { cpuTicks, pinned, pinSelf, spawnChild, threadTicks, ticksToMicros, waitForOutput, type Child } from "./procs";
import { median } from "./report";
import { ROOT, adminKey, startBareProxy, startGateway, startMock, writeConfig } from "./targets";

const { values: o } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    json: { type: "boolean", default: false },
    concurrency: { type: "string", default: "32" },
    rounds: { type: "string", default: "5" },
  },
});
const json = o.json;
const concurrency = Number(o.concurrency);
const unit = json ? "request" : "stream";

async function startMinimal(upstream: string, client: "fetch" | "sockets"): Promise<{ child: Child; url: string }> {
  const cmd = pinned([process.execPath, join(ROOT, "bench/minimal-proxy.ts")], 1);
  const child = spawnChild(`minimal proxy (${client})`, cmd, { PORT: "0", UPSTREAM: upstream, CLIENT: client });
  return { child, url: `http://127.0.0.1:${await waitForOutput(child, /"port":(\d+)/)}` };
}

pinSelf(0);
const dir = mkdtempSync(join(tmpdir(), "sw-floor-"));
const mock = await startMock(json ? 0 : 20, json ? 0 : 5);
const key = adminKey();
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: key };
const path = "/v1/chat/completions";
const plain = { "content-type": "application/json" };
const started = [
  { name: "bare proxy", up: await startBareProxy(mock.url), gateway: false },
  { name: "minimal JS proxy, fetch", up: await startMinimal(mock.url, "fetch"), gateway: false },
  { name: "minimal JS proxy, sockets", up: await startMinimal(mock.url, "sockets"), gateway: false },
  { name: "Switchyard, fetch", up: await startGateway(g, { db: "fetch.db" }), gateway: true },
  {
    name: "Switchyard, sockets",
    up: await startGateway(g, { db: "sockets.db", env: { SWITCHYARD_UPSTREAM_CLIENT: "sockets" } }),
    gateway: true,
  },
];
try {
  const targets: Target[] = started.map((s) => ({
    name: s.gateway ? "switchyard" : "proxy",
    url: s.up.url + path,
    headers: s.gateway ? { ...plain, authorization: `Bearer ${key}` } : plain,
    pid: s.up.child.pid,
    expectRouting: s.gateway,
  }));
  console.log(`warming up ${targets.length} targets…`);
  for (const t of targets) await warmUp(t);
  const cpu = targets.map(() => [] as number[]);
  const byThread = targets.map(() => new Map<string, number>());
  const counts = targets.map(() => 0);
  for (let round = 0; round < Number(o.rounds); round++) {
    // Alternating order, so that the machine's drift falls on every target alike.
    const order = round % 2 === 0 ? [...targets.keys()] : [...targets.keys()].reverse();
    for (const i of order) {
      const t = targets[i]!;
      const [c0, th0] = [cpuTicks(t.pid!), threadTicks(t.pid!)];
      let n: number;
      if (json) {
        const r = await runJson(t, 10_000, concurrency);
        if (r.firstError) throw new Error(`${started[i]!.name}: ${r.firstError}`);
        n = r.count;
      } else {
        const r = await runStreams(t, concurrency * 25, concurrency);
        if (r.firstFailure) throw new Error(`${started[i]!.name}: ${r.firstFailure}`);
        n = r.count;
      }
      cpu[i]!.push(ticksToMicros(cpuTicks(t.pid!) - c0) / n);
      // Thread names without their ids: a thread that ended and one that replaced it count together.
      for (const [k, v] of threadTicks(t.pid!)) {
        const name = k.slice(0, k.lastIndexOf("#"));
        byThread[i]!.set(name, (byThread[i]!.get(name) ?? 0) + v - (th0.get(k) ?? 0));
      }
      counts[i]! += n;
    }
  }
  const bare = median(cpu[0]!);
  console.log(`\nCPU µs per ${unit}, ${concurrency} concurrent, median of ${o.rounds} rounds (÷ bare proxy):`);
  for (const [i, s] of started.entries()) {
    const threads = [...byThread[i]!]
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${(ticksToMicros(v) / counts[i]!).toFixed(0)}`)
      .join(", ");
    const m = median(cpu[i]!);
    console.log(
      `${s.name.padEnd(26)} ${m.toFixed(0).padStart(6)}  ${(m / bare).toFixed(2)}×   rounds ${cpu[i]!.map((x) => x.toFixed(0)).join(" ")}`,
    );
    console.log(`${"".padEnd(26)} by thread: ${threads}`);
  }
} finally {
  await Promise.all([...started.map((s) => s.up.child.stop()), mock.child.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
