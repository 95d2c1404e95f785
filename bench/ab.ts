// `bun bench/ab.ts`: is change B cheaper than A? Two gateways run side by side from source, both
// pinned to core 1, against one mock upstream; the same load goes to A and B in alternating rounds
// (A B, B A, …) so that the machine's drift — on the bench VM the same code moves ±30 % between full
// runs — falls on both alike, and each round's CPU per request (or per stream) is printed with the
// medians. A and B differ by environment variables and/or by checkout:
//
//   bun bench/ab.ts --load stream --concurrency 8 --rounds 6 --a SWITCHYARD_HEAP_LIMIT_MB=0
//   bun bench/ab.ts --a-root /tmp/old-checkout          (a `git worktree` of another commit, with its
//                                                        node_modules; B is this checkout)
//
// --load json|stream (default json), --concurrency (32 / 8), --per-round (10,000 requests / 25 streams
// per connection), --rounds (6), --a / --b KEY=VALUE[,KEY=VALUE…], --a-root / --b-root DIR.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runJson, runStreams, type Target } from "./load";
import { cpuTicks, memory, pinSelf, ticksToMicros } from "./procs";
import { median } from "./report";
import { adminKey, startGateway, startMock, writeConfig, type Upstream } from "./targets";

const { values: o } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    load: { type: "string", default: "json" },
    concurrency: { type: "string" },
    "per-round": { type: "string" },
    rounds: { type: "string", default: "6" },
    a: { type: "string", default: "" },
    b: { type: "string", default: "" },
    "a-root": { type: "string" },
    "b-root": { type: "string" },
  },
});

const streaming = o.load === "stream";
if (!streaming && o.load !== "json") throw new Error(`--load must be json or stream, got ${o.load}`);
const concurrency = Number(o.concurrency ?? (streaming ? 8 : 32));
const perRound = Number(o["per-round"] ?? (streaming ? concurrency * 25 : 10_000));
const rounds = Number(o.rounds);

function envOf(spec: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of spec.split(",").filter(Boolean)) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new Error(`--a/--b take KEY=VALUE pairs, got '${pair}'`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

/** One round's CPU per request (or stream) of the target's process, in µs, after its write-behind work settles. */
async function round(t: Target): Promise<number> {
  const before = cpuTicks(t.pid!);
  const failed = streaming
    ? (await runStreams(t, perRound, concurrency)).firstFailure
    : (await runJson(t, perRound, concurrency)).firstError;
  if (failed) throw new Error(`${t.url}: ${failed}`);
  await Bun.sleep(300);
  return ticksToMicros(cpuTicks(t.pid!) - before) / perRound;
}

async function main(): Promise<void> {
  pinSelf(0);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-ab-"));
  const started: Upstream[] = [];
  try {
    const mock = await startMock(20, 5);
    started.push(mock);
    const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: adminKey() };
    const gateways = await Promise.all(
      (["a", "b"] as const).map((side) =>
        startGateway(g, { env: envOf(o[side]), root: o[`${side}-root`], db: `${side}.db` }).then((u) => (started.push(u), u)),
      ),
    );
    const headers = { "content-type": "application/json", authorization: `Bearer ${g.adminKey}` };
    const targets = gateways.map((u): Target => ({
      name: "switchyard",
      url: `${u.url}/v1/chat/completions`,
      headers,
      pid: u.child.pid,
      expectRouting: true,
    }));
    process.stderr.write(`[ab] warming up both…\n`);
    for (const t of targets) {
      await runJson(t, 3000, 32);
      await runStreams(t, 512, 32);
    }
    const cpu: [number[], number[]] = [[], []];
    const unit = streaming ? "stream" : "request";
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) cpu[i]!.push(await round(targets[i]!));
      process.stdout.write(`round ${r + 1}: A ${cpu[0].at(-1)!.toFixed(0)}  B ${cpu[1].at(-1)!.toFixed(0)} µs per ${unit}\n`);
    }
    const [ma, mb] = [median(cpu[0]), median(cpu[1])];
    const rss = targets.map((t) => (memory(t.pid!).rssKb / 1024).toFixed(0));
    process.stdout.write(
      `median: A ${ma.toFixed(0)}  B ${mb.toFixed(0)} µs per ${unit} (B ÷ A ${(mb / ma).toFixed(2)}); RSS now A ${rss[0]} MB, B ${rss[1]} MB\n`,
    );
  } finally {
    for (const u of started) await u.child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
