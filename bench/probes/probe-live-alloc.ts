// Objects allocated per stream (or JSON request), by JSC type, by the gateway as it runs in production:
// listening (hot routes), on its socket client, against the bench's mock upstream, loaded by a child
// process: `bun bench/probes/probe-live-alloc.ts [--json]`. It counts heap cells between two heapStats()
// with collections held off (GC timers, the gateway's governor and pacer, JSC's heap sizing), so the
// difference is what the load allocated, garbage included. A collection that slips in anyway shows as
// fewer than one Request per unit: the probe then runs again (up to three times).
// Found this way (2026-11-27): a 22-chunk stream made 113 functions, two per chunk from the HTTP/1.1
// parser's line callbacks (now 69; a JSON request makes 25).
import { heapStats } from "bun:jsc";
import { startServer } from "../../test/support/server";
import { startMock } from "../targets";

const json = Bun.argv.includes("--json");
const HOLD_GC = {
  BUN_GC_TIMER_DISABLE: "1",
  BUN_JSC_largeHeapSize: "4000000000",
  BUN_JSC_smallHeapSize: "4000000000",
  BUN_JSC_forceRAMSize: "16000000000",
};

if (!process.env.PROBE_LIVE_CHILD) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const p = Bun.spawn([process.execPath, import.meta.path, ...Bun.argv.slice(2)], {
      env: { ...process.env, ...HOLD_GC, PROBE_LIVE_CHILD: "1" },
      stdout: "pipe",
      stderr: "inherit",
    });
    const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    if (code === 0) {
      process.stdout.write(out);
      process.exit(0);
    }
    console.error(`[probe] a collection ran during the measurement (attempt ${attempt}); again`);
  }
  process.exit(1);
}

const mock = await startMock(json ? 0 : 20, json ? 0 : 5);
const route = (provider: string) => ({ provider, provider_model_id: "m", input_price: 1, output_price: 2 });
const s = await startServer({
  logLevel: "warn",
  env: { SWITCHYARD_HEAP_LIMIT_MB: "0" },
  configFile: {
    catalog: "replace",
    providers: {
      m1: { adapter: "openai", base_url: `${mock.url}/v1`, api_key: "sk-1" },
      m2: { adapter: "openai", base_url: `${mock.url}/v1`, api_key: "sk-2" },
    },
    models: { "bench/chat": { routes: [route("m1"), route("m2")] } },
  },
});

/** `n` requests from a child process over 32 connections. */
const load = (n: number) =>
  Bun.spawn(
    [
      process.execPath,
      "-e",
      `const body = ${JSON.stringify(JSON.stringify({ model: "bench/chat", stream: !json, messages: [{ role: "user", content: "hi" }] }))};
       let left = ${n};
       const one = async () => { while (left-- > 0) { const r = await fetch("${s.url}/v1/chat/completions", { method: "POST", headers: { authorization: "Bearer ${s.adminKey}", "content-type": "application/json" }, body }); await r.text(); } };
       await Promise.all(Array.from({ length: 32 }, one));`,
    ],
    { stdout: "inherit", stderr: "inherit" },
  ).exited;

await load(json ? 20_000 : 3_000); // the JIT's warm-up
await s.deps.records.drain();
Bun.gc(true);
const before = heapStats().objectTypeCounts;
const N = json ? 1_000 : 300;
await load(N);
await s.deps.records.drain();
const after = heapStats().objectTypeCounts;
await mock.child.stop();
const per = (type: string) => ((after[type] ?? 0) - (before[type] ?? 0)) / N;
if (per("BunRequest") < 0.95) process.exit(2); // swept by a collection: not a count of allocations
const rows = Object.keys(after)
  .map((type) => [type, per(type)] as const)
  .filter(([, n]) => n >= 0.5)
  .sort((a, b) => b[1] - a[1]);
console.log(`allocated per ${json ? "JSON request" : "stream"} (${N}):`);
for (const [type, n] of rows) console.log(`${n.toFixed(1).padStart(7)}  ${type}`);
process.exit(0);
