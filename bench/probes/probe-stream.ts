// In-process CPU probe of the streaming hot path (stubbed upstream SSE): `bun bench/probes/probe-stream.ts`.
import { sseAnswer, stubGateway } from "./stub-gateway";
const { s, app, request } = await stubGateway(sseAnswer);
const req = () => request(true);
for (let round = 0; round < 3; round++) {
  const N = 4000;
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const r = await app.handle(req());
    await r.text();
  }
  const c = process.cpuUsage(c0);
  console.log("µs/stream", ((c.user + c.system) / N).toFixed(1));
}
await s.stop();
process.exit(0);
