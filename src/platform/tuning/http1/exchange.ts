// What the socket client (client.ts) keeps per request and per connection, and the sink through which a
// connection's response parser hands what it finds to the request the connection carries now.
import type { UpstreamAbort } from "../../upstream-abort";
import type { UpstreamAnswer } from "../../upstream-answer";
import type { ResponseHead, ResponseParser, ResponseSink } from "./response-parser";
import type { Origin } from "./request";
import type { SocketHolder } from "./socket";
import { owned, type BodyFeed } from "./answer";
import type { Bytes } from "./response";

/** One request on one connection, from the first byte written to the body's end. */
export interface Exchange extends BodyFeed {
  resolve(answer: UpstreamAnswer): void;
  reject(err: unknown): void;
  /** The request's cancel switch: the caller's, or one a caller's AbortSignal drives. */
  cancel: UpstreamAbort;
  /** Stops listening to the caller's AbortSignal (set only when one was given). */
  unlisten: (() => void) | null;
  responded: boolean;
  /** The request as written, kept to retry it once on a fresh connection (client.ts, onClosed). */
  payload: string | Uint8Array;
  /** A HEAD request: no body follows its answer's head. */
  noBody: boolean;
  retried: boolean;
  /** The connection carrying it (a retry moves it to a fresh one). */
  conn: Conn | null;
  /** Pieces of a body that arrived with its head, collected until the end or the head's delivery ends. */
  early: Bytes[] | null;
  head: ResponseHead | null;
}

export interface Conn extends SocketHolder {
  origin: Origin;
  /** One per connection, reset for each exchange; its sink forwards to the current exchange. */
  parser: ResponseParser;
  exchange: Exchange | null;
  /** Carried an earlier exchange: a failure before any response byte may be a server's idle close. */
  reused: boolean;
  idleSince: number;
  idleMs: number;
}

/** A request not yet on a connection. */
export function newExchange(
  resolve: (answer: UpstreamAnswer) => void,
  reject: (err: unknown) => void,
  cancel: UpstreamAbort,
  payload: string | Uint8Array,
  noBody: boolean,
): Exchange {
  return {
    resolve,
    reject,
    cancel,
    unlisten: null,
    pending: null,
    tap: null,
    over: null,
    responded: false,
    payload,
    noBody,
    retried: false,
    conn: null,
    early: null,
    head: null,
  };
}

/** The exchange is over (answered, failed or aborted): the caller's signal and cancel switch are let go. */
export function letGo(x: Exchange): void {
  x.unlisten?.();
  x.unlisten = null;
  x.cancel.onAbort(null);
}

/**
 * A connection's parser sink: what the parser finds goes to the connection's current exchange; the
 * body's end goes to `ended` (the client's, which parks or closes the connection).
 */
export class ConnSink implements ResponseSink {
  constructor(
    private readonly c: Conn,
    private readonly ended: (c: Conn, x: Exchange, keepAlive: boolean) => void,
  ) {}

  head(head: ResponseHead): void {
    const x = this.c.exchange!;
    x.head = head;
    // The rest of this delivery may hold the whole body: then the Response gets it as bytes (no stream).
    x.early = [];
  }

  body(data: Uint8Array, start: number, end: number): void {
    const x = this.c.exchange!;
    // A tap reads the range in place; a piece kept for later is the delivery itself when it is all body,
    // else a copy of its part (response-parser.ts: why not a view). Bun hands each socket read over in a
    // buffer of its own (never reused; http1-client.test.ts checks it).
    if (x.tap && !x.early) return x.tap.piece(data, start, end);
    const piece = owned(data, start, end);
    if (x.early) x.early.push(piece);
    else x.pending?.push(piece);
  }

  end(keepAlive: boolean): void {
    this.ended(this.c, this.c.exchange!, keepAlive);
  }
}
