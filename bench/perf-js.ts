// `bun bench/perf-js.ts [--stream] [--minimal] [--concurrency=N] [requests] [KEY=VALUE …]`: where the gateway's JavaScript thread spends its CPU,
// native time included, from `perf` (software clock, call graphs) rather than Bun's 1 ms sampler.
// Bun ships without symbols, so native frames stay addresses; JSC writes its JIT code map as a jitdump
// (BUN_JSC_useJITDump), which this turns into /tmp/perf-<pid>.map so that perf names the JIT'd
// functions. Each sample of the JS thread is then charged to the innermost JIT'd function on its stack
// (native callees included: JSON, fetch, SQLite, Bun.gc…), or to "no JS frame" (event loop, sends).
// Found this way: under 32 streams, the memory governor's forced collections were ~12 % of the JS
// thread. Needs `perf` with access to the process (root, or perf_event_paranoid ≤ 1).
// `--minimal`: the same for bench/minimal-proxy.ts on the socket client (the floor a JS gateway starts
// from), to set beside the gateway's split. It also prints each JIT'd function's inclusive time (itself
// and its callees), and `--keep-script=FILE` keeps perf's stacks to find who calls an anonymous function.
// Found this way (2026-11-27, 32 streams, a fast day): JS thread 573 µs per stream against the minimal
// proxy's 481, the time outside JS frames the same (345 / 350): the whole gap is JavaScript, ~100 µs,
// spread over the request path (~25), young collections paced per stream and the governor's (~24),
// record commits (~10), the chunk loop (+13) and the attempt's open and finish (~20).
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jitCode } from "./jitdump";
import { runJson, runStreams, warmUp, type Target } from "./load";
import { pinSelf, envArgs } from "./procs";
import { adminKey, startGateway, startMinimal, startMock, writeConfig } from "./targets";

const streams = Bun.argv.includes("--stream");
const minimal = Bun.argv.includes("--minimal");
const requests = Number(Bun.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? (streams ? 3_000 : 40_000));
/** `--concurrency=N` (32): connections or streams at once. */
const concurrency = Number(Bun.argv.find((a) => a.startsWith("--concurrency="))?.slice("--concurrency=".length) ?? 32);
const extraEnv = envArgs();
const JIT_FRAME = /^JSC-(FTL|DFG|Baseline):_/;

/** The jitdump as a perf map ("start size name" lines), so that perf names the JIT'd frames. */
async function jitdumpToPerfMap(dump: string, pid: number): Promise<number> {
  const lines = (await jitCode(dump)).map((r) => `${r.start.toString(16)} ${(r.end - r.start).toString(16)} ${r.name}`);
  await Bun.write(`/tmp/perf-${pid}.map`, lines.join("\n") + "\n");
  return lines.length;
}

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);

/**
 * perf script output of one thread → samples charged to their innermost JIT'd function chain; the
 * samples with no JS frame are split too, by where they are: in the kernel (by the system call, or the
 * kernel function when none), in JSC's collector (a frame whose symbol names it), else by library.
 */
function attribute(script: string): { total: number; rows: [string, number][]; native: [string, number][]; inclusive: [string, number][] } {
  const charged = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const native = new Map<string, number>();
  let total = 0;
  for (const block of script.split("\n\n")) {
    const frames = block
      .split("\n")
      .map((l) => /^\s*[0-9a-f]+ (.+?) \((.*)\)\s*$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ sym: m[1]!, dso: m[2]! }));
    if (frames.length === 0) continue;
    total++;
    const js = frames.filter((f) => JIT_FRAME.test(f.sym)).slice(0, 3);
    const key = js.length ? js.map((f) => f.sym.replace(JIT_FRAME, "")).join(" < ") : "(no JS frame)";
    bump(charged, key);
    if (js.length === 0) bump(native, whereNative(frames));
    // Inclusive: each JIT'd function once per sample it is anywhere on the stack (what it and its
    // callees cost; an async function counts only while it runs, not while it awaits).
    for (const name of new Set(frames.filter((f) => JIT_FRAME.test(f.sym)).map((f) => f.sym.replace(JIT_FRAME, "")))) bump(inclusive, name);
  }
  return { total, rows: sorted(charged), native: sorted(native), inclusive: sorted(inclusive) };
}

function whereNative(frames: { sym: string; dso: string }[]): string {
  if (frames[0]!.dso.includes("kernel")) {
    const sys = frames.find((f) => /^__(x64|do)_sys_/.test(f.sym));
    return `kernel: ${sys ? sys.sym.replace(/^__(x64|do)_sys_/, "") : frames[0]!.sym}`;
  }
  const gc = frames.find((f) => /GC|Heap|Collect|Marking|Sweep/i.test(f.sym) && !f.sym.startsWith("0x"));
  if (gc) return `collector: ${gc.sym}`;
  return `user: ${frames[0]!.dso.split("/").pop()}`;
}

pinSelf(0);
const dir = mkdtempSync(join(tmpdir(), "sw-perf-js-"));
const mock = streams ? await startMock(20, 5) : await startMock(0, 0);
const key = adminKey();
const jd = join(dir, "jitdump");
await Bun.$`mkdir -p ${jd}`;
const jitEnv = { ...extraEnv, BUN_JSC_useJITDump: "1", BUN_JSC_jitDumpDirectory: jd };
const gw = minimal
  ? await startMinimal(mock.url, "sockets", jitEnv)
  : await startGateway({ dir, configPath: writeConfig(dir, mock.url), adminKey: key }, { env: jitEnv });
try {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const t: Target = {
    name: minimal ? "proxy" : "switchyard",
    url: `${gw.url}/v1/chat/completions`,
    headers,
    pid: gw.child.pid,
    expectRouting: !minimal,
  };
  const load = (n: number) => (streams ? runStreams(t, n, concurrency) : runJson(t, n, concurrency));
  await warmUp(t);
  const data = join(dir, "perf.data");
  const perf = Bun.spawn(["perf", "record", "-k", "1", "-F", "5000", "-e", "cpu-clock", "-g", "-p", String(gw.child.pid), "-o", data], {
    stdout: "ignore",
    stderr: "ignore",
  });
  await Bun.sleep(300); // perf attaches
  const run = await load(requests);
  perf.kill("SIGINT");
  await perf.exited;
  // JSC writes the jitdump through a buffered file: stopped first, the process flushes it at exit (read
  // while it ran, a stream load's dump held only the first few KB, and no JIT'd frame had a name).
  await gw.child.stop();
  // The largest dump: the gateway re-executes itself at start (runtime-env.ts), and the image before
  // the exec leaves a small dump of its own beside the real one.
  const dump = readdirSync(jd)
    .filter((f) => f.endsWith(".dump"))
    .sort((a, b) => statSync(join(jd, b)).size - statSync(join(jd, a)).size)[0];
  if (!dump) throw new Error("no jitdump written (BUN_JSC_useJITDump unsupported by this Bun?)");
  await jitdumpToPerfMap(join(jd, dump), gw.child.pid);
  const script = await Bun.$`perf script -i ${data} --comm bun.exe -F ip,sym,dso`.quiet().text();
  // `--keep-script=FILE`: the raw `perf script` text, to read whole stacks (who calls an anonymous function).
  const keep = Bun.argv.find((a) => a.startsWith("--keep-script="))?.slice("--keep-script=".length);
  if (keep) await Bun.write(keep, script);
  const { total, rows, native, inclusive } = attribute(script);
  const unit = streams ? "stream" : "request";
  const us = (n: number) => ((n * 200) / run.count).toFixed(1); // 5 kHz: one sample is 200 µs
  console.log(`JS thread: ${total} samples, ${us(total)} µs/${unit} over ${run.count} ${unit}s`);
  const print = (list: [string, number][], top: number) => {
    for (const [name, n] of list.slice(0, top)) {
      console.log(`${((100 * n) / total).toFixed(1).padStart(5)}% ${us(n).padStart(7)} µs  ${name}`);
    }
  };
  print(rows, 40);
  console.log("inclusive (the function and what it calls):");
  print(inclusive, 40);
  console.log("(no JS frame), split:");
  print(native, 15);
} finally {
  await gw.child.stop();
  await mock.child.stop();
  rmSync(dir, { recursive: true, force: true });
}
