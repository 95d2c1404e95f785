// A response body read by callbacks instead of a reader: each piece goes to `piece` as it arrives, then
// `end` or `error`, with no promise, queue entry or resumption per network read. The socket client
// (http1/client.ts) hands its pieces over straight from the socket's data callback when its Response
// carries a tap; any other body (fetch's, a decoded one) is read by a reader loop into the same calls.
//
// Why: a stream's reader paid, for each of a stream's ~20 network reads, a ReadableStream enqueue, a read
// promise and an async resumption before any of its bytes were parsed (see bench/NOTES.md, session 18).

export interface BodyTap {
  piece(bytes: Uint8Array): void;
  end(): void;
  error(err: unknown): void;
}

/** Set by a client on a Response whose body it can push: takes the body over (before anyone read it). */
export const TAP = Symbol("switchyard.bodyTap");

type Tappable = Response & { [TAP]?: (tap: BodyTap) => void };

/**
 * Delivers `response`'s body to `tap`. Returns how to stop reading early (the socket client's body stops
 * with its request's abort, so it has nothing more to stop).
 */
export function tapBody(response: Response, tap: BodyTap): () => void {
  const take = (response as Tappable)[TAP];
  if (take) {
    take(tap);
    return () => {};
  }
  const body = response.body;
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
        tap.piece(r.value);
      }
    } catch (err) {
      tap.error(err);
    }
  })();
  return () => void reader.cancel().catch(() => {});
}
