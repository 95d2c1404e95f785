// A fast OpenAI-compatible upstream for the benchmark, in its own process. POST …/chat/completions
// answers a fixed completion, or (stream: true) 20 content chunks — the first after TTFT_MS, then one
// every GAP_MS — then the finish chunk, the usage chunk (when include_usage is asked) and [DONE].
// Bodies are pre-encoded so the mock's own cost stays small and constant across targets.
// Env: PORT (0 = any), TTFT_MS, GAP_MS, CHUNKS (content chunks per stream, 20: the bench's; a probe run
// with another count parts a stream's fixed cost from its cost per event). Prints {"port":N} once listening.
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

function streamFrames(model: string) {
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
  return {
    content,
    finish: sse(chunk(model, [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }])),
    usage: sse(chunk(model, [], { usage })),
    done: enc.encode("data: [DONE]\n\n"),
  };
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
  // Per-model caches: the benchmark uses one or two model ids, so this stays tiny.
  const frames = new Map<string, ReturnType<typeof streamFrames>>();
  const bodies = new Map<string, string>();
  const headersJson = { "content-type": "application/json" };
  const headersSse = { "content-type": "text/event-stream", "cache-control": "no-cache" };

  const server = Bun.serve({
    port: Number(process.env.PORT ?? 0),
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      if (req.method !== "POST" || !new URL(req.url).pathname.endsWith("/chat/completions"))
        return new Response("not found", { status: 404 });
      const raw = await req.text();
      const model = modelOf(raw);
      if (!raw.includes('"stream":true')) {
        let body = bodies.get(model);
        if (!body) bodies.set(model, (body = jsonBody(model)));
        return new Response(body, { headers: headersJson });
      }
      let f = frames.get(model);
      if (!f) frames.set(model, (f = streamFrames(model)));
      const fr = f;
      const withUsage = raw.includes('"include_usage":true');
      let timer: ReturnType<typeof setTimeout> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          let i = 0;
          const next = () => {
            try {
              c.enqueue(fr.content[i++]!);
              if (i < STREAM_CHUNKS) {
                timer = setTimeout(next, gap);
                return;
              }
              c.enqueue(fr.finish);
              if (withUsage) c.enqueue(fr.usage);
              c.enqueue(fr.done);
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
      return new Response(body, { headers: headersSse });
    },
  });
  process.stdout.write(JSON.stringify({ port: server.port }) + "\n");
  process.on("SIGTERM", () => {
    void server.stop(true);
    process.exit(0);
  });
}
