// In-process CPU probe of the streaming hot path (stubbed upstream SSE, served through the hot route):
// `bun bench/probes/probe-stream.ts`. STUB_WORDS=1 (stub-gateway.ts) against the default 20 parts a
// stream's fixed cost from its cost per chunk (2026-11-27: 57 µs fixed against 23 per JSON request,
// ~1.2 per chunk).
import { sseAnswer, stubGateway } from "./stub-gateway";
const { s, serve, request } = await stubGateway(sseAnswer);
// Rounds after warm-up; the minimum is the figure (GC and JIT make single rounds noisy).
const rounds: number[] = [];
for (let round = 0; round < 10; round++) {
  const N = 4000;
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const r = await serve(request(true));
    await r.text();
  }
  const c = process.cpuUsage(c0);
  rounds.push((c.user + c.system) / N);
}
console.log(
  `words ${process.env.STUB_WORDS ?? 20}: µs/stream min`,
  Math.min(...rounds.slice(3)).toFixed(1),
  "rounds",
  rounds.map((x) => x.toFixed(0)).join(" "),
);
await s.stop();
process.exit(0);
