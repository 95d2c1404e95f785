// In-process CPU probe of the non-streaming hot path (stubbed upstream, served through the hot route):
// `bun bench/probes/probe-cpu.ts`.
import { JSON_ANSWER, stubGateway } from "./stub-gateway";
const {
  s,
  app,
  serve,
  request: req,
} = await stubGateway(() => new Response(JSON_ANSWER, { headers: { "content-type": "application/json" } }));
// Rounds after warm-up; the minimum is the figure (GC and JIT make single rounds noisy).
const rounds: number[] = [];
for (let round = 0; round < 8; round++) {
  const N = 10000;
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const r = await serve(req());
    await r.text();
  }
  const c = process.cpuUsage(c0);
  rounds.push((c.user + c.system) / N);
}
console.log("µs/req min", Math.min(...rounds.slice(2)).toFixed(1), "rounds", rounds.map((x) => x.toFixed(0)).join(" "));
const N = 20000;
const c0 = process.cpuUsage();
for (let i = 0; i < N; i++) {
  const r = await app.handle(new Request("http://localhost/healthz"));
  await r.text();
}
const c = process.cpuUsage(c0);
console.log("healthz µs/req", ((c.user + c.system) / N).toFixed(1));
await s.stop();
process.exit(0);
