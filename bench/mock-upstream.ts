// A fast upstream for the benchmark, in its own process, speaking three wire dialects. POST
// …/chat/completions answers a fixed completion, or (stream: true) 20 content chunks — the first after
// TTFT_MS, then one every GAP_MS — then the finish chunk, the usage chunk (when include_usage is asked)
// and [DONE]. POST …/v1/messages (Anthropic) and …/responses (OpenAI Responses) answer streams only, with
// the same tokens at the same pace in their own events (bench/mock-dialects.ts).
// Bodies are pre-encoded so the mock's own cost stays small and constant across targets.
// Env: PORT (0 = any), TTFT_MS, GAP_MS, CHUNKS (content chunks per stream, 20: the bench's; a probe run
// with another count parts a stream's fixed cost from its cost per event). Prints {"port":N} once listening.
import { messagesFrames, responsesFrames, type StreamFrames } from "./mock-dialects";

export const STREAM_CHUNKS = Number(process.env.CHUNKS ?? 20);
export const PROMPT_TOKENS = 24;
/** The text a complete stream carries, and the non-streaming answer's content. */
export const STREAM_TEXT = Array.from({ length: STREAM_CHUNKS }, (_, i) => `tok${i} `).join("");
export const JSON_TEXT = "The quick brown fox jumps over the lazy dog. This is a benchmark answer of modest length.";

const enc = new TextEncoder();
const created = 1_700_000_000;
const sse = (obj: unknown) => enc.encode(`data: ${JSON.stringify(obj)}\n\n`);
const chunk = (model: string, choices: unknown[], extra?: Record<string, unknown>) => ({
  id: "chatcmpl-bench",
  object: "chat.completion.chunk",
  created,
  model,
  system_fingerprint: "fp_bench",
  choices,
  ...extra,
});

function chatFrames(model: string, withUsage: boolean): StreamFrames {
  const content = Array.from({ length: STREAM_CHUNKS }, (_, i) =>
    sse(
      chunk(model, [
        {
          index: 0,
          delta: i === 0 ? { role: "assistant", content: `tok${i} ` } : { content: `tok${i} ` },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    ),
  );
  const usage = { prompt_tokens: PROMPT_TOKENS, completion_tokens: STREAM_CHUNKS, total_tokens: PROMPT_TOKENS + STREAM_CHUNKS };
  const finish = sse(chunk(model, [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }]));
  const done = enc.encode("data: [DONE]\n\n");
  return { head: [], content, tail: withUsage ? [finish, sse(chunk(model, [], { usage })), done] : [finish, done] };
}

/** The stream a path answers, or null (not a streaming path of the mock). */
export function streamFramesFor(path: string, model: string, raw: string): StreamFrames | null {
  if (path.endsWith("/chat/completions")) return chatFrames(model, raw.includes('"include_usage":true'));
  if (path.endsWith("/v1/messages")) return messagesFrames(model);
  if (path.endsWith("/responses")) return responsesFrames(model);
  return null;
}

/** The frames' body: head and the first delta after `ttft` ms, one delta every `gap` ms, the tail after the last. */
function paced(f: StreamFrames, ttft: number, gap: number): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream<Uint8Array>({
    start(c) {
      let i = 0;
      const next = () => {
        try {
          if (i === 0) for (const h of f.head) c.enqueue(h);
          c.enqueue(f.content[i++]!);
          if (i < f.content.length) {
            timer = setTimeout(next, gap);
            return;
          }
          for (const t of f.tail) c.enqueue(t);
          c.close();
        } catch {
          // The client went away; nothing more to send.
        }
      };
      timer = setTimeout(next, ttft);
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}

function jsonBody(model: string): string {
  return JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created,
    model,
    system_fingerprint: "fp_bench",
    choices: [{ index: 0, message: { role: "assistant", content: JSON_TEXT, refusal: null }, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: 21, total_tokens: PROMPT_TOKENS + 21 },
  });
}

function modelOf(raw: string): string {
  const m = /"model":"([^"]*)"/.exec(raw);
  return m?.[1] ?? "m";
}

if (import.meta.main) {
  const ttft = Number(process.env.TTFT_MS ?? 20);
  const gap = Number(process.env.GAP_MS ?? 5);
  // Per-path-and-model caches: the benchmark uses a few model ids, so this stays tiny.
  const frames = new Map<string, StreamFrames | null>();
  const bodies = new Map<string, string>();
  const headersJson = { "content-type": "application/json" };
  const headersSse = { "content-type": "text/event-stream", "cache-control": "no-cache" };

  const server = Bun.serve({
    port: Number(process.env.PORT ?? 0),
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method !== "POST") return new Response("not found", { status: 404 });
      const raw = await req.text();
      const model = modelOf(raw);
      if (!raw.includes('"stream":true')) {
        if (!path.endsWith("/chat/completions")) return new Response("not found", { status: 404 });
        let body = bodies.get(model);
        if (!body) bodies.set(model, (body = jsonBody(model)));
        return new Response(body, { headers: headersJson });
      }
      const key = `${path} ${model} ${raw.includes('"include_usage":true')}`;
      let f = frames.get(key);
      if (f === undefined) frames.set(key, (f = streamFramesFor(path, model, raw)));
      if (!f) return new Response("not found", { status: 404 });
      return new Response(paced(f, ttft, gap), { headers: headersSse });
    },
  });
  process.stdout.write(JSON.stringify({ port: server.port }) + "\n");
  process.on("SIGTERM", () => {
    void server.stop(true);
    process.exit(0);
  });
}
