// In-process CPU probe of the streaming hot path (stubbed upstream SSE): `bun bench/probes/probe-stream.ts`.
import { stubGateway } from "./stub-gateway";
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
const { s, app, request } = await stubGateway(
  () =>
    new Response(
      new ReadableStream({
        start(c) {
          for (const x of chunks) c.enqueue(x);
          c.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    ),
);
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
