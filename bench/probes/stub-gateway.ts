// The in-process gateway the probes drive: one model on one OpenAI-compatible provider whose fetch is
// stubbed (no network), generous limits, warn logging, and a request maker for /v1/chat/completions.
import { answerOf } from "../../src/platform/upstream-answer";
import { startServer, GENEROUS_LIMITS } from "../../test/support/server";

const config = {
  catalog: "replace",
  limits: GENEROUS_LIMITS,
  providers: { m1: { adapter: "openai", base_url: "http://stub/v1", api_key: "sk-1" } },
  models: { "bench/chat": { routes: [{ provider: "m1", provider_model_id: "m", input_price: 1, output_price: 2 }] } },
};

/** A non-streaming upstream answer. */
export const JSON_ANSWER = JSON.stringify({
  id: "x",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "hello there" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});

const enc = new TextEncoder();
const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", system_fingerprint: "fp_1" };
const sse = (chunk: object) => `data: ${JSON.stringify({ ...base, ...chunk })}\n\n`;
/**
 * A streamed upstream answer: a role chunk, 20 words (STUB_WORDS: how many; 1 parts a stream's fixed cost
 * from its cost per chunk), the finish chunk, the usage chunk and [DONE], in OpenAI's own layout.
 */
const SSE_CHUNKS: Uint8Array[] = [
  sse({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }] }),
  ...Array.from({ length: Number(process.env.STUB_WORDS ?? 20) }, (_, i) =>
    sse({ choices: [{ index: 0, delta: { content: ` word${i}` }, logprobs: null, finish_reason: null }] }),
  ),
  sse({ choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }] }),
  sse({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } }) + "data: [DONE]\n\n",
].map((text) => enc.encode(text));

export function sseAnswer(): Response {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const x of SSE_CHUNKS) c.enqueue(x);
      c.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

type BunRoute = (request: Request, server: { requestIP(r: Request): { address: string } | null }) => Promise<Response>;
const PEER = { requestIP: () => ({ address: "127.0.0.1" }) };

/**
 * Starts the gateway with `upstream` as its upstream (its Responses as answers); `request(stream)` builds
 * one chat completions request and `serve(request)` answers it as the listening server does: through the
 * hot route in Bun.serve's table (http/hot-routes.ts), not Elysia's composition (app.handle), which the
 * inference POSTs skip in production.
 */
export async function stubGateway(upstream: () => Response) {
  // The bench's gateway logs at warn: no request log line, and no after-response hook for it.
  const s = await startServer({ configFile: config, logLevel: "warn" });
  s.deps.inference.send = async () => answerOf(upstream());
  const { createApp } = await import("../../src/app");
  const app = createApp(s.deps);
  const request = (stream = false) =>
    new Request("http://localhost/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${s.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "bench/chat",
        ...(stream ? { stream: true } : {}),
        messages: [{ role: "user", content: "Say hello" }],
      }),
    });
  const hot = (app.config.serve as { routes: Record<string, { POST: BunRoute }> }).routes["/v1/chat/completions"]!.POST;
  const serve = (r: Request) => hot(r, PEER);
  return { s, app, request, serve };
}
