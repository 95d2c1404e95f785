// What an upstream request gives the gateway: the status and headers, then the body either whole as
// text or piece by piece to a tap (callbacks: no reader, promise or queue entry per network read).
// The socket client (http1/) answers with light objects of its own: no native Response (nor Headers)
// is built for an answer the gateway reads once (measured side by side: the lazy Headers alone were
// 0.96× the CPU per JSON request); fetch's Responses, the fallback client's, are wrapped by answerOf.
import type { UpstreamAbort } from "./upstream-abort";

/** A body's pieces, as they arrive, then its end or its failure. */
export interface BodyTap {
  /** Body bytes bytes[start, end), as they arrived (the array may hold more: framing, a next response). */
  piece(bytes: Uint8Array, start: number, end: number): void;
  end(): void;
  error(err: unknown): void;
}

export interface UpstreamAnswer {
  readonly status: number;
  readonly ok: boolean;
  /** Built on first use by the socket client's answers (read only when an attempt failed). */
  readonly headers: Headers;
  /** The whole body as text. */
  text(): Promise<string>;
  /** Hands the body to `tap` (once, instead of text); returns how to stop it early (the request is cancelled). */
  tap(tap: BodyTap): () => void;
  /** The answer as a fetch Response (for callers that want one; the body is not read yet). */
  response(): Response;
}

/** Sends one upstream request; `abort`, when given, is its cancel switch instead of `init.signal`. */
export type UpstreamSend = (url: string, init: RequestInit, abort?: UpstreamAbort) => Promise<UpstreamAnswer>;

/** A fetch Response as an answer: its body tapped by a reader loop. */
export function answerOf(res: Response): UpstreamAnswer {
  return {
    status: res.status,
    ok: res.ok,
    get headers() {
      return res.headers;
    },
    text: () => res.text(),
    tap: (tap) => readInto(res.body, tap),
    response: () => res,
  };
}

function readInto(body: ReadableStream<Uint8Array> | null, tap: BodyTap): () => void {
  if (!body) {
    queueMicrotask(() => tap.end());
    return () => {};
  }
  const reader = body.getReader();
  void (async () => {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) return tap.end();
        tap.piece(r.value, 0, r.value.length);
      }
    } catch (err) {
      tap.error(err);
    }
  })();
  return () => void reader.cancel().catch(() => {});
}
