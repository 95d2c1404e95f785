// In-process CPU probe of the streaming hot path (stubbed upstream SSE): `bun bench/probes/probe-stream.ts`.
import { startServer, GENEROUS_LIMITS } from "../../test/support/server";
const cfg = {
  catalog: "replace",
  limits: GENEROUS_LIMITS,
  providers: { m1: { adapter: "openai", base_url: "http://stub/v1", api_key: "sk-1" } },
  models: { "bench/chat": { routes: [{ provider: "m1", provider_model_id: "m", input_price: 1, output_price: 2 }] } },
};
const s = await startServer({ configFile: cfg, env: { SWITCHYARD_LOG_LEVEL: "warn" } });
const enc = new TextEncoder();
const chunks: Uint8Array[] = [];
const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };
chunks.push(
  enc.encode(
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] })}\n\n`,
  ),
);
for (let i = 0; i < 20; i++)
  chunks.push(
    enc.encode(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: ` word${i}` }, finish_reason: null }] })}\n\n`),
  );
chunks.push(enc.encode(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`));
chunks.push(
  enc.encode(
    `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } })}\n\ndata: [DONE]\n\n`,
  ),
);
s.deps.inference.fetch = (async () =>
  new Response(
    new ReadableStream({
      start(c) {
        for (const x of chunks) c.enqueue(x);
        c.close();
      },
    }),
    { headers: { "content-type": "text/event-stream" } },
  )) as unknown as typeof fetch;
const { createApp } = await import("../../src/app");
const app = createApp(s.deps);
const req = () =>
  new Request("http://localhost/v1/chat/completions", {
    method: "POST",
    headers: { authorization: `Bearer ${s.adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "bench/chat", stream: true, messages: [{ role: "user", content: "Say hello" }] }),
  });
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
