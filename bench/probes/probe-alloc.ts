// Bytes allocated per request on the non-streaming hot path (in process, stubbed upstream fetch):
// `bun bench/probes/probe-alloc.ts [requests]`. Unlike CPU time, allocation does not depend on what
// else the machine is doing, so it compares two versions of the hot path exactly; and garbage is a
// large part of the gateway's CPU (each eden collection costs ~5 ms on the bench VM).
//
// JSC reports, with BUN_JSC_logGC=1, the bytes allocated in each cycle when it starts a collection;
// the probe re-runs itself with that set, drives the requests after a warm-up, and sums the cycles
// that began during the measured window (± one cycle, ~24 MB, hence the default of 60,000 requests).
// `--stream`: streamed calls instead (22 upstream chunks each; default 6,000).
import { JSON_ANSWER, sseAnswer, stubGateway } from "./stub-gateway";

const streaming = Bun.argv.includes("--stream");
const requests = Number(Bun.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? (streaming ? 6_000 : 60_000));
const unit = streaming ? "stream" : "request";
const MARK = "@@probe-alloc@@";

if (!process.env.PROBE_ALLOC_CHILD) {
  const p = Bun.spawn([process.execPath, import.meta.path, String(requests), ...(streaming ? ["--stream"] : [])], {
    env: { ...process.env, PROBE_ALLOC_CHILD: "1", BUN_JSC_logGC: "1", BUN_JSC_forceRAMSize: String(64 << 20) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const log = err + out;
  const start = log.indexOf(`${MARK} start`);
  const end = log.indexOf(`${MARK} end`);
  if (start < 0 || end < 0) throw new Error(`probe child failed:\n${log.slice(-3000)}`);
  const window = log.slice(start, end);
  let bytes = 0;
  let cycles = 0;
  for (const m of window.matchAll(/bytes allocated this cycle: (\d+)/g)) {
    bytes += Number(m[1]);
    cycles++;
  }
  const n = /requests=(\d+)/.exec(log.slice(start))?.[1];
  console.log(`allocated per ${unit}: ${(bytes / Number(n) / 1024).toFixed(1)} KB (${cycles} collections over ${n} ${unit}s; ± one cycle)`);
  process.exit(0);
}

const { s, serve, request } = await stubGateway(
  streaming ? sseAnswer : () => new Response(JSON_ANSWER, { headers: { "content-type": "application/json" } }),
);
const req = () => request(streaming);
const drive = async (n: number) => {
  for (let i = 0; i < n; i++) {
    const r = await serve(req());
    if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${await r.text()}`);
    await r.text();
  }
};
await drive(streaming ? 1_000 : 5_000);
await s.deps.records.drain();
Bun.gc(true); // the cycle count starts from zero here
console.error(`${MARK} start requests=${requests}`);
await drive(requests);
await s.deps.records.drain();
console.error(`${MARK} end`);
await s.stop();
process.exit(0);
