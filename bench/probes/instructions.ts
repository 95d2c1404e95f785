// `bun bench/probes/instructions.ts [--target minimal,switchyard] [--streams N] [--concurrency N] [--json]
// [--warmup N] [--root DIR] [--env K=V,…] [--functions TOP] [--cache [--event DLmr]]`: user-space instructions per stream (or JSON
// request) of the minimal JS proxy and of Switchyard, counted by valgrind's callgrind, by thread: the main
// (JavaScript) thread, and the others (JSC's JIT compilers and GC markers, the allocator's scavenger).
// `--functions 30` names the main thread's top functions (own instructions, and each JIT'd JS function's
// inclusive ones) through JSC's jitdump (bench/jitdump.ts); native code stays an address (Bun ships
// without symbols). `--cache` adds callgrind's cache simulation (first- and last-level misses; `--event
// DLmr` ranks the functions by last-level read misses). KEEP=1 keeps the callgrind files. CHUNKS=60 in
// the environment makes the mock's streams 60 chunks long: two runs part a stream's fixed instructions
// from those per event (2026-11-27: minimal ~126k + ~18k per chunk, Switchyard ~330–410k + ~11k).
//
// Why: CPU time on the bench VM drifts ±25 % between runs of one code; instruction counts do not follow
// the VM's speed. They do follow the collector and the JIT, which run when allocation, timers and the
// compiler threads say: with the governor and pacer off and Bun's GC timer off (--env
// SWITCHYARD_HEAP_LIMIT_MB=0,BUN_GC_TIMER_DISABLE=1) two runs of one code read 3–9 % apart on the main
// thread (586k / 602k, 593k / 546k per stream), about what bench/ab.ts resolves; what the counts add is
// where: a change shows in the functions it touched (--functions), whatever the total did. What they
// leave out: the kernel (the system calls are the same for both, bench/probes/syscalls.ts), and what a
// cold machine makes of each instruction; and since 500 streams at 8 take ~15 s under valgrind against
// ~7.5 s natively, work paced by the clock (record flushes, polls, the governor) weighs ~2× more per
// stream than on the bench.
//
// Each target runs alone under valgrind, counting off while it starts and warms up; callgrind_control
// zeroes and switches counting on for the measured load, then dumps. The mock upstream and the load
// generator run natively.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runJson, runStreams, type Target } from "../load";
import { RUNTIME_SETTINGS } from "../../src/platform/tuning/runtime-env";
import { parseCallgrind, type CallgrindProfile } from "../callgrind";
import { jitCode, jitCodeAt, type JitCode } from "../jitdump";
import { envList, freePort, spawnChild, waitForHttp, waitForOutput, type Child } from "../procs";
import { adminKey, gatewayEnv, ROOT, startMock, writeConfig } from "../targets";

const { values: o } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    target: { type: "string", default: "minimal,switchyard" },
    // Streams (or JSON requests with --json) counted; the warm-up before them is not.
    streams: { type: "string", default: "500" },
    concurrency: { type: "string", default: "8" },
    warmup: { type: "string", default: "3000" },
    json: { type: "boolean", default: false },
    // Another checkout's gateway (the same load on an older commit: a git worktree with node_modules linked).
    root: { type: "string" },
    // Name the main thread's costs by function: its own instructions, and each JIT'd JS function's
    // inclusive ones (what it and its callees cost), through JSC's jitdump.
    functions: { type: "string" },
    // The mock's milliseconds between a stream's events (the bench's 5).
    gap: { type: "string", default: "5" },
    // callgrind's cache simulation (first-level and last-level misses per unit; slower).
    cache: { type: "boolean", default: false },
    // The event --functions ranks by: Ir, or with --cache e.g. DLmr (last-level read misses).
    event: { type: "string", default: "Ir" },
    // `--env K=V[,K=V…]`: more environment for every target (e.g. a setting's cost, or GC held steady).
    env: { type: "string" },
  },
});
const N = Number(o.streams);
const C = Number(o.concurrency);
const BUN = process.execPath;
const dir = mkdtempSync(join(tmpdir(), "sw-instr-"));
const mock = await startMock(o.json ? 0 : 20, o.json ? 0 : Number(o.gap));
const key = adminKey();
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: key };
const plain = { "content-type": "application/json" };
// JSC's jitdump names the JIT'd functions' code addresses (the "???" functions of callgrind's dump).
const TOP = Number(o.functions ?? 0);
const jit = { ...(TOP > 0 ? { BUN_JSC_useJITDump: "1", BUN_JSC_jitDumpDirectory: dir } : {}), ...(o.env ? envList(o.env) : {}) };

function valgrind(tag: string): string[] {
  return [
    "valgrind",
    "--tool=callgrind",
    "--instr-atstart=no",
    "--separate-threads=yes",
    ...(o.cache ? ["--cache-sim=yes"] : []),
    `--callgrind-out-file=${join(dir, `cg.${tag}.%p`)}`,
  ];
}

// valgrind names its vgdb pipes after $HOST (the gateway's listen address here), so callgrind_control
// must see the target's HOST to find them.
async function control(pid: number, host: string | undefined, ...args: string[]): Promise<void> {
  const env = { ...process.env, HOST: host };
  const p = Bun.spawn(["callgrind_control", ...args, String(pid)], { env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`callgrind_control ${args.join(" ")} failed: ${out}${err}`);
}

/**
 * The "totals:" lines of the dumps callgrind wrote for this target ("summary:" reads 0 after --zero), by
 * thread: "main" (the JS thread, where the proxy's work runs) and "other" (JSC's compiler and GC helper
 * threads, Bun's pools: a JIT compile still running in the window lands here, not in the main figure).
 */
function totals(tag: string): Record<string, Record<string, number>> {
  const files = readdirSync(dir).filter((f) => f.startsWith(`cg.${tag}.`));
  const out: Record<string, Record<string, number>> = { main: {}, other: {} };
  for (const f of files) {
    const text = readFileSync(join(dir, f), "utf8");
    const events = /^events: (.+)$/m.exec(text)?.[1]?.split(" ") ?? [];
    const line = /^totals: (.+)$/m.exec(text)?.[1]?.split(" ").map(Number) ?? [];
    const into = /-01$/.test(f) ? out.main! : out.other!;
    events.forEach((e, i) => (into[e] = (into[e] ?? 0) + (line[i] ?? 0)));
  }
  return out;
}

async function start(name: string): Promise<{ child: Child; url: string; gateway: boolean }> {
  if (name === "switchyard") {
    const port = freePort();
    const root = o.root ?? ROOT;
    const cmd = [...valgrind(name), BUN, join(root, "src/main.ts"), "serve"];
    // The runtime settings `serve` would re-execute itself for (src/platform/tuning/runtime-env.ts) are given up
    // front, all of them: a re-execution under valgrind would leave valgrind behind.
    const child = spawnChild(name, cmd, { ...gatewayEnv(g, port, "bench.db"), ...RUNTIME_SETTINGS, ...jit }, { cwd: root });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/readyz`, 200, 300_000, 200);
    return { child, url, gateway: true };
  }
  if (name !== "minimal") throw new Error(`unknown target '${name}' (minimal, switchyard)`);
  const env = { PORT: "0", UPSTREAM: mock.url, CLIENT: "sockets", ...jit };
  const child = spawnChild(name, [...valgrind(name), BUN, join(ROOT, "bench/minimal-proxy.ts")], env);
  const port = await waitForOutput(child, /"port":(\d+)/, 300_000);
  return { child, url: `http://127.0.0.1:${port}`, gateway: false };
}

async function load(t: Target, n: number): Promise<void> {
  if (o.json) {
    const r = await runJson(t, n, C);
    if (r.firstError) throw new Error(`${t.name}: ${r.firstError}`);
  } else {
    const r = await runStreams(t, n, C);
    if (r.firstFailure) throw new Error(`${t.name}: ${r.firstFailure}`);
  }
}

/** A function's name for the report: JIT'd code by its JS name, native code by object and address. */
function label(key: string, code: readonly JitCode[]): string {
  const [object, fn] = key.split("\t") as [string, string];
  if (object === "???" && fn.startsWith("0x")) {
    const c = jitCodeAt(code, parseInt(fn, 16));
    return c ? `js ${c.name.replace(/^JSC-(FTL|DFG|Baseline):_?/, "")}` : `jit ${fn}`;
  }
  return `${object.split("/").pop()} ${fn}`;
}

/** The main thread's top functions: own instructions, and JS functions' inclusive ones (per unit). */
function byFunction(p: CallgrindProfile, code: readonly JitCode[], per: number): void {
  const own = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  for (const [k, v] of p.self) {
    const l = label(k, code);
    add(own, l, v);
    if (l.startsWith("js ")) add(inclusive, l, v);
  }
  for (const [caller, out] of p.calls) {
    const l = label(caller, code);
    if (!l.startsWith("js ")) continue;
    for (const [callee, v] of out) if (label(callee, code) !== l) add(inclusive, l, v);
  }
  const print = (title: string, m: Map<string, number>) => {
    console.log(`  ${title} (${o.event}):`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
      console.log(
        `  ${Math.round(v / per)
          .toLocaleString("en-US")
          .padStart(9)}  ${k.slice(0, 110)}`,
      );
    }
  };
  print("own", own);
  print("JS functions, inclusive (an async function's parts separately; recursion counted again)", inclusive);
}

const unit = o.json ? "request" : "stream";
try {
  for (const name of o.target.split(",")) {
    const s = await start(name);
    const t: Target = {
      name: name === "switchyard" ? "switchyard" : "minimal",
      url: `${s.url}/v1/chat/completions`,
      headers: s.gateway ? { ...plain, authorization: `Bearer ${key}` } : plain,
      pid: s.child.pid,
      expectRouting: s.gateway,
    };
    const host = s.gateway ? "127.0.0.1" : undefined;
    await load(t, Number(o.warmup));
    await control(s.child.pid, host, "--zero");
    await control(s.child.pid, host, "-i", "on");
    await load(t, N);
    await control(s.child.pid, host, "-i", "off");
    await control(s.child.pid, host, "--dump");
    await s.child.stop(60_000);
    const per = (t: Record<string, number>) => Object.entries(t).map(([e, v]) => `${e} ${Math.round(v / N).toLocaleString("en-US")}`);
    const { main, other } = totals(name);
    console.log(`${name.padEnd(12)} per ${unit}: main thread ${per(main!).join(", ")}; other threads ${per(other!).join(", ")}`);
    if (TOP > 0) {
      const dump = readdirSync(dir).find((f) => f.startsWith(`jit-${s.child.pid}`) || f.includes(`-${s.child.pid}.`));
      const mainFile = readdirSync(dir).find((f) => f.startsWith(`cg.${name}.`) && f.endsWith(".1-01"));
      const code = dump ? await jitCode(join(dir, dump)) : [];
      if (mainFile) byFunction(parseCallgrind(readFileSync(join(dir, mainFile), "utf8"), o.event), code, N);
    }
  }
} finally {
  await mock.child.stop();
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
  else console.log(dir);
}
