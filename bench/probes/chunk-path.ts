// `bun bench/probes/chunk-path.ts`: the per-chunk JavaScript of a stream without the network, in a tight
// loop: the bench mock's 20-chunk SSE body (as it arrives, one network read per chunk) through (a) the
// minimal proxy's work (decode, eventsource-parser, JSON.parse + JSON.stringify per event) and (b) the
// gateway's (UpstreamEvents' decode and parse, the OpenAI adapter's translation, the chat encoder).
// Says how much of a stream's CPU the per-chunk JS is, beside the per-stream cost bench/floor.ts shows.
// Found this way (2026-11-27): 20–34 µs per 21-read stream for the minimal proxy's work and 27–42 µs for
// the gateway's, against ~900 µs of CPU per stream in the bench: the translation itself is not where a
// stream's cost is; reading and writing the network, the event loop and the kernel are.
// Since plain content chunks skip JSON.parse and JSON.stringify (openai-compatible/plain-delta.ts, session
// 19): the gateway's 27–34 µs, against 31–39 before and the minimal proxy's 22–27 in the same runs (the
// gateway's figure includes its per-stream reader: decoder, parser, translator).
import { createParser } from "eventsource-parser";
import { UpstreamEvents } from "../../src/inference/upstream-events";
import { answerOf } from "../../src/platform/upstream-answer";
import { chatSseTransformer } from "../../src/inference/chat/render";
import { SyncTransform } from "../../src/inference/sync-transform";
import { adapterFor } from "../../src/providers/registry";
import type { PipelineEvent } from "../../src/inference/types";

const enc = new TextEncoder();
const model = "bench-model";
const chunk = (choices: unknown[], extra?: object) =>
  enc.encode(
    `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model, system_fingerprint: "fp", choices, ...extra })}\n\n`,
  );
const reads: Uint8Array[] = [];
reads.push(chunk([{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }]));
for (let i = 0; i < 20; i++) reads.push(chunk([{ index: 0, delta: { content: `tok${i} ` }, logprobs: null, finish_reason: null }]));
const last = [
  chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }]),
  chunk([], { usage: { prompt_tokens: 24, completion_tokens: 20, total_tokens: 44 } }),
  enc.encode("data: [DONE]\n\n"),
];
reads[reads.length - 1] = Buffer.concat([reads[reads.length - 1]!, ...last]);

function minimal(): number {
  let bytes = 0;
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent: (e) => {
      if (e.data === "[DONE]") return void (bytes += 14);
      const c = JSON.parse(e.data) as { model: string };
      c.model = `minimal/${c.model}`;
      bytes += `data: ${JSON.stringify(c)}\n\n`.length;
    },
  });
  for (const r of reads) parser.feed(decoder.decode(r, { stream: true }));
  return bytes;
}

const adapter = adapterFor("openai");
const target = { providerModelId: model } as Parameters<typeof adapter.streamTransformer>[0];
function gateway(): number {
  let bytes = 0;
  const body = answerOf(new Response(new ReadableStream<Uint8Array>({ start() {} })));
  const events = new UpstreamEvents(body, adapter, target, new AbortController());
  const out = new SyncTransform<PipelineEvent, string>(chatSseTransformer());
  for (const r of reads) {
    events.piece(r, 0, r.length);
    for (let e = events.take(); e !== null && e.type !== "end"; e = events.take()) {
      if (e.type === "delta") for (const s of out.push(e)) bytes += s.length;
    }
  }
  events.end();
  events.cancel();
  return bytes;
}

for (const [name, fn] of [
  ["minimal", minimal],
  ["gateway", gateway],
  ["minimal", minimal],
  ["gateway", gateway],
] as const) {
  for (let i = 0; i < 2000; i++) fn();
  const n = 20_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  console.log(`${name}: ${(((performance.now() - t0) * 1000) / n).toFixed(1)} µs per 21-read stream`);
}
