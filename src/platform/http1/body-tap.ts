// A Response body taken as callbacks instead of a ReadableStream. The socket client's streamed bodies
// offer it: each network delivery goes straight to the consumer inside the socket's data handler, with
// no stream queue, read promise or resumption per piece between them (the gateway reads every SSE
// chunk in JavaScript, so it pays those on every chunk of every stream). Any other Response (fetch's,
// a decoded body, one already being read) refuses, and the consumer reads its stream as usual.
import type { Bytes } from "./response";

export interface BodyTap {
  /** One piece of the body, as it arrived (a view the consumer may keep). */
  data(piece: Bytes): void;
  /** The body ended. */
  end(): void;
  /** The body failed (the connection broke, the request was aborted); nothing follows. */
  error(err: unknown): void;
}

const offers = new WeakMap<Response, (tap: BodyTap) => boolean>();

/** The client's side: `take` hands the body to the tap, or refuses (false) when its stream was chosen. */
export function offerTap(res: Response, take: (tap: BodyTap) => boolean): void {
  offers.set(res, take);
}

/**
 * The consumer's side: true when the body now goes to `tap` (pieces that already arrived are handed
 * over at once, synchronously), false when it must be read as a stream.
 */
export function tapBody(res: Response, tap: BodyTap): boolean {
  const take = offers.get(res);
  if (!take) return false;
  offers.delete(res);
  return take(tap);
}
