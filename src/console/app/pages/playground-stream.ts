// One streamed chat completion from the browser: fetch with the playground key, the body's SSE parsed by
// eventsource-parser (the same parser the gateway uses), content deltas handed on as they arrive, and
// the final chunks' usage and routing_metadata kept. A refusal before the stream is an ApiFailure with
// the API's message and param; a failure inside the stream (after content) is kept as the answer's error.
import { EventSourceParserStream } from "eventsource-parser/stream";
import { ApiFailure, type Row } from "../lib/api";

export interface Answer {
  text: string;
  routing: Row | null;
  usage: Row | null;
  /** The response's X-Request-ID: the Requests page's detail of this call. */
  requestId: string | null;
  /** From sending to the first content delta, as the browser saw it (ms). */
  ttftMs: number | null;
  totalMs: number;
  /** The stream's own error event (a failure after its first byte), or why reading it broke off. */
  error: ApiFailure | null;
  stopped: boolean;
}

async function refusal(r: Response): Promise<ApiFailure> {
  let e: Row = {};
  try {
    e = ((await r.json()) as Row).error as Row;
  } catch {
    // A body that is not JSON keeps only the status.
  }
  return failureOf(e ?? {}, r.status);
}

function failureOf(e: Row, status: number): ApiFailure {
  return new ApiFailure(
    String(e.message ?? `HTTP ${status}`),
    status,
    typeof e.param === "string" ? e.param : null,
    typeof e.code === "string" ? e.code : null,
  );
}

const isAbort = (e: unknown) => (e as Error)?.name === "AbortError";

export async function streamChat(key: string, body: Row, signal: AbortSignal, onText: (text: string) => void): Promise<Answer> {
  const started = performance.now();
  const a: Answer = { text: "", routing: null, usage: null, requestId: null, ttftMs: null, totalMs: 0, error: null, stopped: false };
  let r: Response;
  try {
    r = await fetch("/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ ...body, stream: true }),
      signal,
    });
  } catch (e) {
    if (isAbort(e)) return { ...a, stopped: true, totalMs: performance.now() - started };
    throw e;
  }
  if (!r.ok) throw await refusal(r);
  a.requestId = r.headers.get("x-request-id");
  const events = r.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await events.read();
      if (done || value.data === "[DONE]") break;
      const chunk = JSON.parse(value.data) as Row;
      if (chunk.error) a.error = failureOf(chunk.error as Row, r.status);
      if (chunk.usage) a.usage = chunk.usage as Row;
      if (chunk.routing_metadata) a.routing = chunk.routing_metadata as Row;
      const delta = ((chunk.choices as Row[] | undefined)?.[0]?.delta ?? null) as Row | null;
      if (typeof delta?.content === "string" && delta.content !== "") {
        a.ttftMs ??= performance.now() - started;
        a.text += delta.content;
        onText(a.text);
      }
    }
  } catch (e) {
    // Cut off after the answer began (a dropped connection): what arrived is kept, with the reason.
    if (isAbort(e)) a.stopped = true;
    else a.error = new ApiFailure(`The stream broke off: ${String((e as Error)?.message ?? e)}`, 0, null, null);
  } finally {
    // After [DONE] or a Stop, nothing more is read: the body is let go (a stopped one is already aborted).
    void events.cancel().catch(() => undefined);
  }
  a.totalMs = performance.now() - started;
  return a;
}
