// `bun bench/floor.ts [--json] [--concurrency N] [--rounds N]`: what reading every event in JavaScript
// costs before any gateway work. Side by side, each pinned to core 1 and driven in alternating rounds:
// the bench's bare proxy (no JS per chunk), the minimal JS proxy (bench/minimal-proxy.ts: parses every
// SSE event and re-serialises it) on fetch and on Switchyard's socket client, and Switchyard on each
// client. Prints CPU per stream (or JSON request) of each process, the median of the rounds, and its
// split by thread. Found this way (2026-11-26, 32 streams): the minimal proxy costs 1.4–1.7× the bare
// proxy, so the 1.5× target leaves Switchyard almost nothing above the cheapest JS reader.
//
// By thread, user and system time and context switches (slept = voluntary, preempted = involuntary).
// `--burn N` adds the minimal proxy on each client with a busy loop of N µs per request: what N µs of
// JavaScript costs the whole process. Found this way (2026-11-26, JSON, --burn 40): on fetch +56–68 µs,
// because the HTTP Client thread (same core) wakes and preempts the busy main thread about once per
// request (0.9 preemptions per request, against 0.4 without the loop); on the socket client +44–50 µs,
// with no context switches at all. Switchyard on fetch: ~0.75 preemptions per request.
// `--gap 0` (the mock sends a stream's events back to back) parts a stream's fixed cost from its cost per
// network read. Found this way (2026-11-27, 32 streams, a fast day): bare / minimal on sockets /
// Switchyard on sockets 175 / 238 / 338 µs per stream at gap 0 and 263 / 388 / 488 at the bench's 5 ms:
// per read Switchyard costs what the minimal proxy does; its extra ~100 µs is per stream.
// `--raw` adds the minimal proxy on sockets writing each network read of the body on untouched (RAW=1):
// the floor of any proxy that handles a stream's chunks in JavaScript. Found this way (2026-11-27,
// session 23, 32 streams, five rounds): bare / bytes as read / minimal (events parsed) / Switchyard on
// sockets 628 / 673 / 820 / 906 µs per stream (1.00 / 1.07 / 1.31 / 1.44×): handing each chunk through
// JavaScript costs ~7 %, reading its events ~23 % more, and the gateway's own work the rest.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runJson, runStreams, warmUp, type Target } from "./load";
import { cpuMicrosBetween, cpuSample, envList, pinSelf, threadStats, ticksToMicros, type ThreadStat } from "./procs";
import { median } from "./report";
import { adminKey, startBareProxy, startGateway, startMinimal, startMock, writeConfig } from "./targets";

const { values: o } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    json: { type: "boolean", default: false },
    concurrency: { type: "string", default: "32" },
    rounds: { type: "string", default: "5" },
    burn: { type: "string", default: "0" },
    // One more minimal proxy on sockets that writes each network read of the body on as it came (RAW=1).
    raw: { type: "boolean", default: false },
    // The mock's stream timing: a gap of 0 sends each stream's events back to back (few network reads),
    // which parts a stream's fixed cost from its cost per read.
    ttft: { type: "string", default: "20" },
    gap: { type: "string", default: "5" },
    // `--env KEY=VALUE[,KEY=VALUE…]`: one more Switchyard on sockets with that environment (a setting's
    // cost by thread, e.g. --env SWITCHYARD_HEAP_LIMIT_MB=0).
    env: { type: "string" },
    // `--proxy-env KEY=VALUE[,…]`: one more bare proxy and minimal proxy on sockets with that environment
    // (what a runtime setting Switchyard gives itself would do for the references).
    "proxy-env": { type: "string" },
  },
});
const json = o.json;
const FIELDS = ["user", "system", "voluntary", "involuntary"] as const;
const concurrency = Number(o.concurrency);
const unit = json ? "request" : "stream";

pinSelf(0);
const dir = mkdtempSync(join(tmpdir(), "sw-floor-"));
const mock = await startMock(json ? 0 : Number(o.ttft), json ? 0 : Number(o.gap));
const key = adminKey();
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: key };
const path = "/v1/chat/completions";
const plain = { "content-type": "application/json" };
const started = [
  { name: "bare proxy", up: await startBareProxy(mock.url), gateway: false },
  { name: "minimal JS proxy, fetch", up: await startMinimal(mock.url, "fetch"), gateway: false },
  { name: "minimal JS proxy, sockets", up: await startMinimal(mock.url, "sockets"), gateway: false },
  ...(o["proxy-env"]
    ? [
        { name: `bare proxy, ${o["proxy-env"]}`, up: await startBareProxy(mock.url, envList(o["proxy-env"])), gateway: false },
        {
          name: `minimal, sockets, ${o["proxy-env"]}`,
          up: await startMinimal(mock.url, "sockets", envList(o["proxy-env"])),
          gateway: false,
        },
      ]
    : []),
  ...(o.raw
    ? [{ name: "minimal, sockets, bytes as read", up: await startMinimal(mock.url, "sockets", { RAW: "1" }), gateway: false }]
    : []),
  ...(o.burn === "0"
    ? []
    : await Promise.all(
        (["fetch", "sockets"] as const).map(async (client) => ({
          name: `minimal, ${client}, +${o.burn} µs`,
          up: await startMinimal(mock.url, client, { BURN_US: o.burn }),
          gateway: false,
        })),
      )),
  { name: "Switchyard, fetch", up: await startGateway(g, { db: "fetch.db", env: { SWITCHYARD_UPSTREAM_CLIENT: "fetch" } }), gateway: true },
  {
    name: "Switchyard, sockets",
    up: await startGateway(g, { db: "sockets.db", env: { SWITCHYARD_UPSTREAM_CLIENT: "sockets" } }),
    gateway: true,
  },
  ...(o.env
    ? [
        {
          name: `Switchyard, sockets, ${o.env}`,
          up: await startGateway(g, { db: "env.db", env: { SWITCHYARD_UPSTREAM_CLIENT: "sockets", ...envList(o.env) } }),
          gateway: true,
        },
      ]
    : []),
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
  const byThread = targets.map(() => new Map<string, ThreadStat>());
  const counts = targets.map(() => 0);
  for (let round = 0; round < Number(o.rounds); round++) {
    // Alternating order, so that the machine's drift falls on every target alike.
    const order = round % 2 === 0 ? [...targets.keys()] : [...targets.keys()].reverse();
    for (const i of order) {
      const t = targets[i]!;
      const [c0, th0] = [cpuSample(t.pid!), threadStats(t.pid!)];
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
      cpu[i]!.push(cpuMicrosBetween(c0, cpuSample(t.pid!)) / n);
      // Thread names without their ids: a thread that ended and one that replaced it count together.
      for (const [k, v] of threadStats(t.pid!)) {
        const name = k.slice(0, k.lastIndexOf("#"));
        const acc = byThread[i]!.get(name) ?? { user: 0, system: 0, voluntary: 0, involuntary: 0 };
        const was = th0.get(k);
        for (const f of FIELDS) acc[f] += v[f] - (was?.[f] ?? 0);
        byThread[i]!.set(name, acc);
      }
      counts[i]! += n;
    }
  }
  const bare = median(cpu[0]!);
  console.log(`\nCPU µs per ${unit}, ${concurrency} concurrent, median of ${o.rounds} rounds (÷ bare proxy):`);
  for (const [i, s] of started.entries()) {
    const per = (x: number) => x / counts[i]!;
    const threads = [...byThread[i]!]
      .filter(([, v]) => v.user + v.system > 0)
      .sort((a, b) => b[1].user + b[1].system - a[1].user - a[1].system)
      .map(([k, v]) => {
        const switches =
          per(v.voluntary + v.involuntary) >= 0.01
            ? `, switches ${per(v.voluntary).toFixed(2)} slept + ${per(v.involuntary).toFixed(2)} preempted`
            : "";
        return `${k} ${ticksToMicros(per(v.user)).toFixed(0)} user + ${ticksToMicros(per(v.system)).toFixed(0)} sys${switches}`;
      })
      .join("; ");
    const m = median(cpu[i]!);
    console.log(
      `${s.name.padEnd(26)} ${m.toFixed(0).padStart(6)}  ${(m / bare).toFixed(2)}×   rounds ${cpu[i]!.map((x) => x.toFixed(0)).join(" ")}`,
    );
    console.log(`${"".padEnd(26)} by thread (µs and context switches per ${unit}): ${threads}`);
  }
} finally {
  await Promise.all([...started.map((s) => s.up.child.stop()), mock.child.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
