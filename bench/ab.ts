// `bun bench/ab.ts`: is change B cheaper than A? Two gateways run side by side from source, both
// pinned to core 1, against one mock upstream; the same load goes to A and B in alternating rounds
// (A B, B A, …) so that the machine's drift — on the bench VM the same code moves ±30 % between full
// runs — falls on both alike, and each round's CPU per request (or per stream) is printed with the
// medians. A and B differ by environment variables and/or by checkout:
//
//   bun bench/ab.ts --load stream --concurrency 8 --rounds 6 --a SWITCHYARD_HEAP_LIMIT_MB=0
//   bun bench/ab.ts --a-root /tmp/old-checkout          (a `git worktree` of another commit, with its
//                                                        node_modules; B is this checkout)
//   bun bench/ab.ts --load messages-stream --together --a-root /tmp/translating   (a dialect's stream:
//                                                        the translating path against the native one)
//
// --load json|stream|messages-stream|responses-stream (default json; stream is chat completions, the
// other two the same answer as Anthropic Messages to an anthropic route and as OpenAI Responses to a
// Responses-API route, bench/stream-kinds.ts), --concurrency (32 / 8), --per-round (10,000 requests / 25 streams
// per connection), --rounds (6), --a / --b KEY=VALUE[,KEY=VALUE…], --a-root / --b-root DIR,
// --a-binary / --b-binary PATH: run a compiled executable (`bun run build`) instead of the source.
// --processes N (3): gateways per side. One gateway process varies ±10 % with its own JIT and heap luck
// (measured: identical code, 83 vs 98 µs per request in two processes), so a side is the median of the
// medians of N processes, and a change is believable when every process of one side beats every one of
// the other. --warmup / --warmup-streams (30,000 requests, 14,336 streams: until the JIT's optimising
// compiles are over; WARMUP in load.ts).
// --b-load: side B runs another stream load than A (same --root/--a/--b as A for a paired comparison of
// two dialects on the same code, e.g. --load stream --b-load messages-stream --together: is a Messages
// stream dearer than a chat stream?).
// --minimal: the sides are bench/minimal-proxy.ts on the socket client instead of gateways (--a/--b give
// their environment, e.g. --b BUN_GC_TIMER_DISABLE=1): what a change to the reading machinery is worth before any gateway work.
// --together: each round loads A_k and B_k at the same time instead of one after the other. The VM's speed
// drifts by up to 1.5x between consecutive runs (the same minimal proxy measured 412 and 678 µs per stream
// a minute apart), and alternating rounds only spreads that drift; loaded together on the same core, a
// pair sees the same machine, so the ratio B_k ÷ A_k of each round is printed too, and its median is the
// figure to read. Checked A against A (2026-11-27, 32 streams, three pairs, four rounds): paired median
// 0.98, quartiles 0.97–1.00, where alternating rounds had put identical code at 0.89 or 1.02: a change
// below ~3 % still cannot be told from a process's own luck (one pair sat at 0.96 throughout).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runJson, runStreams, warmUp, WARMUP, type Target } from "./load";
import { cpuMicrosBetween, cpuSample, envList, machineTicks, memory, pinSelf, stealPercent } from "./procs";
import { median } from "./report";
import type { StreamKind } from "./stream-kinds";
import { adminKey, kindTarget, startGateway, startMinimal, startMock, writeConfig, type Upstream } from "./targets";

const { values: o } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    load: { type: "string", default: "json" },
    "b-load": { type: "string" },
    concurrency: { type: "string" },
    "per-round": { type: "string" },
    rounds: { type: "string", default: "6" },
    a: { type: "string", default: "" },
    b: { type: "string", default: "" },
    "a-root": { type: "string" },
    "b-root": { type: "string" },
    "a-binary": { type: "string" },
    "b-binary": { type: "string" },
    processes: { type: "string", default: "3" },
    together: { type: "boolean", default: false },
    minimal: { type: "boolean", default: false },
    warmup: { type: "string", default: String(WARMUP.requests) },
    "warmup-streams": { type: "string", default: String(WARMUP.streams) },
  },
});

const LOADS: Record<string, StreamKind | null> = {
  json: null,
  stream: "chat",
  "messages-stream": "messages",
  "responses-stream": "responses",
};
for (const load of [o.load, o["b-load"] ?? o.load])
  if (!(load in LOADS)) throw new Error(`--load / --b-load must be one of ${Object.keys(LOADS).join(", ")}, got ${load}`);
/** Each side's stream kind; null for the JSON load. B's is A's unless --b-load names another. */
const kinds = [LOADS[o.load]!, LOADS[o["b-load"] ?? o.load]!] as const;
const streaming = kinds[0] !== null;
if ((kinds[1] !== null) !== streaming) throw new Error("--b-load: both sides stream, or neither");
const concurrency = Number(o.concurrency ?? (streaming ? 8 : 32));
const perRound = Number(o["per-round"] ?? (streaming ? concurrency * 25 : 10_000));
const rounds = Number(o.rounds);
const processes = Number(o.processes);
const warmup = Number(o.warmup);
const warmupStreams = Number(o["warmup-streams"]);

/** One round's CPU per request (or stream) of the target's process, in µs, after its write-behind work settles. */
async function round(t: Target): Promise<number> {
  const before = cpuSample(t.pid!);
  const failed = streaming
    ? (await runStreams(t, perRound, concurrency)).firstFailure
    : (await runJson(t, perRound, concurrency)).firstError;
  if (failed) throw new Error(`${t.url}: ${failed}`);
  await Bun.sleep(300);
  return cpuMicrosBetween(before, cpuSample(t.pid!)) / perRound;
}

async function main(): Promise<void> {
  pinSelf(0);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-ab-"));
  const started: Upstream[] = [];
  try {
    const mock = await startMock(20, 5);
    started.push(mock);
    const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: adminKey() };
    const sides = ["a", "b"] as const;
    const gateways: Upstream[][] = [];
    for (const side of sides) {
      const list: Upstream[] = [];
      for (let k = 0; k < processes; k++) {
        const binary = o[`${side}-binary`];
        const u = o.minimal
          ? await startMinimal(mock.url, "sockets", envList(o[side]))
          : await startGateway(g, {
              env: envList(o[side]),
              root: o[`${side}-root`],
              db: `${side}${k}.db`,
              ...(binary ? { binary } : {}),
            });
        started.push(u);
        list.push(u);
      }
      gateways.push(list);
    }
    // A target of a gateway under one kind (the JSON load's: chat's URL).
    const target = (u: Upstream, k: StreamKind): Target =>
      o.minimal ? kindTarget("proxy", u.url, u.child.pid, null, k) : kindTarget("switchyard", u.url, u.child.pid, g.adminKey, k);
    // Interleaved A0 B0 A1 B1 …: neighbours in the order are from different sides.
    const all: { side: 0 | 1; k: number; u: Upstream; t: Target }[] = [];
    for (let k = 0; k < processes; k++)
      for (const side of [0, 1] as const) {
        const u = gateways[side]![k]!;
        all.push({ side, k, u, t: target(u, kinds[side] ?? "chat") });
      }
    process.stderr.write(`[ab] warming up ${all.length} gateways…\n`);
    // JSON and chat streams as ever; each stream kind measured adds its own streams at the same time
    // (WARMUP, load.ts), on both sides alike.
    const warmKinds = [...new Set<StreamKind>(["chat", ...kinds.filter((k) => k !== null)])];
    for (const { u } of all) {
      const streams = warmKinds.map((k) => target(u, k));
      await warmUp(streams[0]!, { requests: warmup, streams: warmupStreams }, streams);
    }
    const cpu = all.map(() => [] as number[]);
    const unit = streaming ? "stream" : "request";
    const ratios: number[] = [];
    const ticksAtStart = machineTicks();
    for (let r = 0; r < rounds; r++) {
      if (o.together) {
        // all[] is A0 B0 A1 B1 …: pair k is entries 2k and 2k + 1.
        for (let k = 0; k < processes; k++) {
          // The side whose load starts first alternates by round (it could favour one side).
          const [a, b] =
            r % 2 === 0
              ? await Promise.all([round(all[2 * k]!.t), round(all[2 * k + 1]!.t)])
              : (await Promise.all([round(all[2 * k + 1]!.t), round(all[2 * k]!.t)])).reverse();
          cpu[2 * k]!.push(a);
          cpu[2 * k + 1]!.push(b);
          ratios.push(b / a);
        }
      } else {
        const order = r % 2 === 0 ? all.map((_, i) => i) : all.map((_, i) => all.length - 1 - i);
        for (const i of order) cpu[i]!.push(await round(all[i]!.t));
      }
      const line = all.map((x, i) => `${"AB"[x.side]}${x.k} ${cpu[i]!.at(-1)!.toFixed(0)}`).join("  ");
      const paired = o.together
        ? `  (B ÷ A ${ratios
            .slice(-processes)
            .map((v) => v.toFixed(2))
            .join(" ")})`
        : "";
      process.stdout.write(`round ${r + 1}: ${line} µs per ${unit}${paired}\n`);
    }
    const medians = all.map((_, i) => median(cpu[i]!));
    const of = (side: 0 | 1) => medians.filter((_, i) => all[i]!.side === side);
    const [ma, mb] = [median(of(0)), median(of(1))];
    const clear =
      Math.max(...of(1)) < Math.min(...of(0))
        ? "every B below every A"
        : Math.max(...of(0)) < Math.min(...of(1))
          ? "every A below every B"
          : "sides overlap";
    const rss = all.map((x) => `${"AB"[x.side]}${x.k} ${(memory(x.t.pid!).rssKb / 1024).toFixed(0)}`).join(", ");
    process.stdout.write(
      `per process: A ${of(0)
        .map((v) => v.toFixed(0))
        .join("/")}  B ${of(1)
        .map((v) => v.toFixed(0))
        .join("/")} µs per ${unit}\n` +
        `median: A ${ma.toFixed(0)}  B ${mb.toFixed(0)} (B ÷ A ${(mb / ma).toFixed(2)}; ${clear}); RSS MB: ${rss}\n` +
        `steal while the rounds ran: ${stealPercent(ticksAtStart, machineTicks())?.toFixed(1) ?? "?"} % of the machine's CPU time\n`,
    );
    if (o.together) {
      const sorted = [...ratios].sort((x, y) => x - y);
      const q = (f: number) => sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))]!.toFixed(2);
      process.stdout.write(
        `paired B ÷ A over ${ratios.length} pairs: median ${median(ratios).toFixed(2)}, quartiles ${q(0.25)}–${q(0.75)}\n`,
      );
    }
  } finally {
    for (const u of started) await u.child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
