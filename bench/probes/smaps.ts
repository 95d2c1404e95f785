// `bun bench/probes/smaps.ts [--binary PATH] [--rounds 10] [--streams 256] [KEY=VAL…]`: where the compiled
// gateway's resident memory is, from /proc/PID/smaps — the binary's file pages, other files, the anonymous
// mappings grouped by size (each ≥64 MB reservation on its own) — idle after the bench's warm-up, then after each round of streams at 128 (the
// bench's memory rows), with the peak (VmHWM, reset after the warm-up). KEY=VAL pairs go to the gateway's
// environment (JSC or allocator options to compare).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runStreams, warmUp, type Target } from "../load";
import { envArgs, memory, pinSelf, resetPeak } from "../procs";
import { adminKey, buildBinary, startGateway, startMock, writeConfig } from "../targets";

const { values: o, positionals } = parseArgs({
  args: Bun.argv.slice(2),
  allowPositionals: true,
  options: {
    binary: { type: "string" },
    rounds: { type: "string", default: "10" },
    streams: { type: "string", default: "256" },
    /** Run the source with these bun flags (e.g. --preload a sampler) instead of the compiled binary. */
    "bun-flags": { type: "string" },
  },
});
const extraEnv = envArgs(positionals);

interface Group {
  rssKb: number;
  anonKb: number;
  count: number;
}

/** Resident and anonymous KB per kind of mapping. */
function breakdown(pid: number, binary: string): Map<string, Group> {
  const groups = new Map<string, Group>();
  let current: { name: string; sizeKb: number; start: number } | null = null;
  const add = (key: string, field: "rssKb" | "anonKb", kb: number, first: boolean) => {
    const g = groups.get(key) ?? { rssKb: 0, anonKb: 0, count: 0 };
    g[field] += kb;
    if (first) g.count++;
    groups.set(key, g);
  };
  const keyOf = (name: string, sizeKb: number, start: number): string => {
    if (name === binary) return "binary";
    if (name.startsWith("[")) return name;
    if (name.startsWith("/")) return name.includes(".db") ? "sqlite files" : `file ${name.split("/").pop()}`;
    if (sizeKb >= 64 * 1024) return `anon ${Math.round(sizeKb / 1024)}MB@${start.toString(16).slice(0, 6)}`;
    if (sizeKb >= 4 * 1024) return "anon 4–64MB";
    if (sizeKb >= 1024) return "anon 1–4MB";
    return "anon <1MB";
  };
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ /.exec(line);
    if (head) {
      const [range, , , , , ...rest] = line.split(/\s+/);
      const [a, b] = range!.split("-").map((x) => parseInt(x, 16));
      current = { name: rest.join(" ").trim(), sizeKb: (b! - a!) / 1024, start: a! };
      continue;
    }
    if (!current) continue;
    const m = /^(Rss|Anonymous):\s+(\d+) kB/.exec(line);
    if (!m) continue;
    const key = keyOf(current.name, current.sizeKb, current.start);
    add(key, m[1] === "Rss" ? "rssKb" : "anonKb", Number(m[2]), m[1] === "Rss");
  }
  return groups;
}

function show(label: string, pid: number, binary: string): void {
  const m = memory(pid);
  const g = [...breakdown(pid, binary).entries()].sort((x, y) => y[1].rssKb - x[1].rssKb);
  const parts = g
    .filter(([, v]) => v.rssKb >= 256)
    .map(([k, v]) => `${k} ${(v.rssKb / 1024).toFixed(1)}${v.count > 1 ? `(${v.count})` : ""}`);
  console.log(`${label}: RSS ${(m.rssKb / 1024).toFixed(1)} MB, peak ${(m.hwmKb / 1024).toFixed(1)} — ${parts.join(", ")}`);
}

pinSelf(0);
const dir = mkdtempSync(join(tmpdir(), "sw-smaps-"));
const bunFlags = o["bun-flags"]?.split(" ");
const binary = bunFlags ? "" : (o.binary ?? (await buildBinary(dir)).path);
const mock = await startMock(0, 0);
const key = adminKey();
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: key };
const gw = await startGateway(g, bunFlags ? { bunFlags, env: extraEnv } : { binary, env: extraEnv });
try {
  const pid = gw.child.pid;
  show("started", pid, binary);
  const t: Target = {
    name: "switchyard",
    url: `${gw.url}/v1/chat/completions`,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    pid,
    expectRouting: true,
  };
  await warmUp(t);
  await Bun.sleep(500);
  show("idle after warm-up", pid, binary);
  await Bun.sleep(1500);
  show("idle 2 s after warm-up", pid, binary);
  resetPeak(pid);
  if (bunFlags) process.kill(pid, "SIGUSR2"); // a --preload'ed sampler's peak restarts too
  for (let r = 0; r < Number(o.rounds); r++) {
    const run = await runStreams(t, Number(o.streams), 128);
    if (run.firstFailure) throw new Error(run.firstFailure);
    await Bun.sleep(200);
    show(`round ${r + 1}`, pid, binary);
  }
} finally {
  await gw.child.stop();
  const stopped = /.*"stopped".*/.exec(gw.child.output());
  if (stopped) console.log(stopped[0]);
  if (extraEnv.MIMALLOC_SHOW_STATS) console.log(gw.child.output().slice(-6000)); // the allocator's statistics at exit
  await mock.child.stop();
  rmSync(dir, { recursive: true, force: true });
}
