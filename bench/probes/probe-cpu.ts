// In-process CPU probe of the non-streaming hot path (stubbed upstream fetch): `bun bench/probes/probe-cpu.ts`.
import { startServer, GENEROUS_LIMITS } from "../../test/support/server";
const cfg = {
  catalog: "replace",
  limits: GENEROUS_LIMITS,
  providers: { m1: { adapter: "openai", base_url: "http://stub/v1", api_key: "sk-1" } },
  models: { "bench/chat": { routes: [{ provider: "m1", provider_model_id: "m", input_price: 1, output_price: 2 }] } },
};
const s = await startServer({ configFile: cfg, env: { SWITCHYARD_LOG_LEVEL: "warn" } });
const body = JSON.stringify({
  id: "x",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "hello there" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});
s.deps.inference.fetch = (async () => new Response(body, { headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
const { createApp } = await import("../../src/app");
const app = createApp(s.deps);
const req = () =>
  new Request("http://localhost/v1/chat/completions", {
    method: "POST",
    headers: { authorization: `Bearer ${s.adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "bench/chat", messages: [{ role: "user", content: "Say hello" }] }),
  });
// Rounds after warm-up; the minimum is the figure (GC and JIT make single rounds noisy).
const rounds: number[] = [];
for (let round = 0; round < 8; round++) {
  const N = 10000;
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const r = await app.handle(req());
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
