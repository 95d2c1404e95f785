// `bun bench/profile.ts [requests]`: one CPU profile of Switchyard (`bun --cpu-prof`) under the
// non-streaming 32-connection load, summarised by self time into bench/results/profile-notes.md.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { runJson, runStreams, type Target } from "./load";
import { cpuTicks, pinSelf, ticksToMicros } from "./procs";
import { ROOT, adminKey, startGateway, startMock, writeConfig } from "./targets";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

// `--stream`: the 32-stream load instead (writes profile-notes-stream.md).
// `--keep=FILE`: also copy the raw .cpuprofile there (for reading call stacks).
const streaming = Bun.argv.includes("--stream");
const requests = Number(Bun.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? (streaming ? 3_000 : 20_000));

function where(url: string): string {
  if (!url) return "(native)";
  const path = url.replace(/^file:\/\//, "");
  const rel = path.startsWith(ROOT) ? relative(ROOT, path) : path;
  return rel.replace(/^node_modules\//, "npm:");
}

const label = (f: ProfileNode["callFrame"]) => `${f.functionName || "(anonymous)"} — ${where(f.url)}${f.url ? `:${f.lineNumber + 1}` : ""}`;

/**
 * Self time (µs) per function and per file, from the sampled stacks' leaves; and, because most
 * leaves are native (fetch, SQLite, JSON), the same time charged to the nearest src/ frame on the stack.
 */
function summarise(p: Profile) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  const owner = new Map<string, number>();
  const ownerFile = new Map<string, number>();
  const orphan = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, dt: number) => m.set(k, (m.get(k) ?? 0) + dt);
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const node = byId.get(p.samples[i]!);
    const dt = p.timeDeltas[i + 1] ?? p.timeDeltas[i] ?? 0;
    if (!node) continue;
    total += dt;
    add(fn, label(node.callFrame), dt);
    add(file, where(node.callFrame.url).replace(/^(npm:(@[^/]+\/)?[^/]+).*/, "$1"), dt);
    let id: number | undefined = node.id;
    let own = "(no src/ frame: runtime, GC, idle or library callbacks)";
    while (id !== undefined) {
      const f = byId.get(id)!.callFrame;
      if (where(f.url).startsWith("src/")) {
        own = label(f);
        break;
      }
      id = parent.get(id);
    }
    add(owner, own, dt);
    if (id === undefined) add(orphan, label(node.callFrame), dt);
    add(ownerFile, own.includes(" — src/") ? own.slice(own.indexOf(" — ") + 3).replace(/:\d+$/, "") : own, dt);
  }
  const top = (m: Map<string, number>, n: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  return {
    total,
    fns: top(fn, 30),
    files: top(file, 20),
    owners: top(owner, 30),
    ownerFiles: top(ownerFile, 20),
    orphans: top(orphan, 15),
  };
}

async function main(): Promise<void> {
  pinSelf(0);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-profile-"));
  const profDir = join(dir, "prof");
  try {
    const mock = await startMock(20, 5);
    const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: adminKey() };
    // The gateway's own settings (SWITCHYARD_*) in this environment pass through: a profile of e.g. the socket client.
    const env = Object.fromEntries(Object.entries(process.env).filter((kv): kv is [string, string] => kv[0].startsWith("SWITCHYARD_")));
    const gw = await startGateway(g, { env, bunFlags: ["--cpu-prof", `--cpu-prof-dir=${profDir}`, "--cpu-prof-name=gateway.cpuprofile"] });
    const target: Target = {
      name: "switchyard",
      url: `${gw.url}/v1/chat/completions`,
      headers: { "content-type": "application/json", authorization: `Bearer ${g.adminKey}` },
      pid: gw.child.pid,
      expectRouting: true,
    };
    const load = (n: number) => (streaming ? runStreams(target, n, 32) : runJson(target, n, 32));
    await load(streaming ? 200 : 1000);
    const before = cpuTicks(gw.child.pid);
    const run = await load(requests);
    const cpuUs = ticksToMicros(cpuTicks(gw.child.pid) - before) / run.count;
    if ("firstError" in run && run.firstError) throw new Error(`load failed: ${run.firstError}`);
    // The profile is written when the process exits (SIGTERM → graceful shutdown → exit).
    await gw.child.stop(15_000);
    await mock.child.stop();
    const file = readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"));
    if (!file) throw new Error(`no profile written: ${gw.child.output()}`);
    const keep = Bun.argv.find((a) => a.startsWith("--keep="))?.slice("--keep=".length);
    if (keep) writeFileSync(keep, readFileSync(join(profDir, file)));
    const s = summarise(JSON.parse(readFileSync(join(profDir, file), "utf8")) as Profile);
    const pct = (us: number) => `${((100 * us) / s.total).toFixed(1)}%`;
    const md = [
      `# Where Switchyard's CPU goes (${streaming ? "32 concurrent streams" : "non-streaming, 32 connections"})`,
      "",
      `Generated by \`bun bench/profile.ts\` on ${new Date().toISOString()}: ${run.count} requests through \`bun --cpu-prof src/main.ts serve\``,
      `(1 ms sampling, JS thread only; the profile covers start-up, warm-up and load). CPU under the profiler: ${cpuUs.toFixed(0)} µs/request`,
      `(all threads, from /proc; the profiler itself adds some). Sampled time: ${(s.total / 1e6).toFixed(2)} s.`,
      "",
      "## Self time by function (top 30)",
      "",
      "| self | share | function — location |",
      "| ---: | ---: | --- |",
      ...s.fns.map(([k, us]) => `| ${(us / 1000).toFixed(0)} ms | ${pct(us)} | ${k.replace(/\|/g, "\\|")} |`),
      "",
      "## Time charged to the nearest src/ function on the stack (top 30)",
      "",
      "Native leaves (fetch, SQLite, JSON, Response) counted against the project code that called them.",
      "",
      "| time | share | src/ function |",
      "| ---: | ---: | --- |",
      ...s.owners.map(([k, us]) => `| ${(us / 1000).toFixed(0)} ms | ${pct(us)} | ${k.replace(/\|/g, "\\|")} |`),
      "",
      "## The same, by src/ file (top 20)",
      "",
      "| time | share | src/ file |",
      "| ---: | ---: | --- |",
      ...s.ownerFiles.map(([k, us]) => `| ${(us / 1000).toFixed(0)} ms | ${pct(us)} | ${k} |`),
      "",
      "## Leaves with no src/ frame on the stack (top 15)",
      "",
      "| self | share | function — location |",
      "| ---: | ---: | --- |",
      ...s.orphans.map(([k, us]) => `| ${(us / 1000).toFixed(0)} ms | ${pct(us)} | ${k.replace(/\|/g, "\\|")} |`),
      "",
      "## Self time by file / package (top 20)",
      "",
      "| self | share | file |",
      "| ---: | ---: | --- |",
      ...s.files.map(([k, us]) => `| ${(us / 1000).toFixed(0)} ms | ${pct(us)} | ${k} |`),
      "",
    ].join("\n");
    writeFileSync(join(ROOT, streaming ? "bench/results/profile-notes-stream.md" : "bench/results/profile-notes.md"), md);
    process.stdout.write(md);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`[profile] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
