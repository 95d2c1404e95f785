// The upstream HTTP client: HTTP/1.1 over Bun's sockets, with keep-alive connections pooled per origin.
// `send` answers with an UpstreamAnswer (answer.ts: no native Response; a streaming body's pieces go to a
// tap straight from the socket's data callback), `fetch` with a Response as fetch would (the body streams
// as it arrives; the signal aborts the request or its body), for tests and the bench's minimal proxy.
//
// Why not fetch: Bun's fetch runs on its own client thread and hands every response and body read to
// JavaScript through a native stream source that allocates 64 KB+ read buffers in the JS heap. Measured
// on the bench VM (bench notes, JS proxies side by side): per non-streaming request 38 µs with fetch,
// 30 µs with this client; per 20-chunk stream read chunk by chunk in JS ~650 µs against ~540 µs. The
// gateway reads every stream chunk in JS (translation, usage), so it pays this on every stream. The
// price is memory, paid back by pacing young collections: see upstream-fetch.ts.
//
// Scope: http and https origins, request bodies given as strings or bytes, responses framed by length,
// chunked coding or close, with gzip/deflate/br/zstd bodies decoded. Requests go without
// `accept-encoding` compression (identity), as a gateway on a fast link gains nothing from it. Another
// scheme is refused (provider base URLs are http(s) by schema); with a proxy in the environment the
// chooser uses fetch instead (createUpstreamClient, upstream-fetch.ts). This file holds the exchanges
// and the pool; the socket itself (opening, the TLS handshake, partial writes) is socket.ts's.
import { UpstreamAbort } from "../upstream-abort";
import { Http1ParseError, ResponseParser, type ResponseHead, type ResponseSink } from "./response-parser";
import { requestHead, originOf, type Origin } from "./request";
import { IdlePool } from "./idle-pool";
import { openSocket, writeRequest, type SocketHolder } from "./socket";
import { concatAll, keepAliveTimeout, needsDecoding, respond, type Bytes } from "./response";
import { answerFor, owned, StreamedAnswer, WholeAnswer, type BodyFeed } from "./answer";
import { answerOf, type UpstreamAnswer, type UpstreamSend } from "../upstream-answer";

/**
 * fetch's shape; `abort`, when given, replaces `init.signal` as the request's cancel switch (a callback,
 * not an EventTarget listener per request: upstream-abort.ts).
 */
export type UpstreamFetch = (url: string, init: RequestInit, abort?: UpstreamAbort) => Promise<Response>;

export interface Http1ClientOptions {
  /** An idle pooled connection is closed after this long (or the server's keep-alive timeout, if shorter). */
  idleMs?: number;
  /** Idle connections kept per origin; more are closed when they come back. */
  maxIdlePerOrigin?: number;
  /** Extra certificate authorities for https origins (PEM), e.g. a test's self-signed server. */
  ca?: string | string[];
  /**
   * Called after each exchange whose body ended; `streamed` when the body came in pieces after its head
   * (an SSE stream, say) rather than whole with it. The gateway paces young collections with it (edenPacer).
   */
  afterExchange?: (streamed: boolean) => void;
}

export interface Http1Client {
  /** The gateway's way in: an answer without a native Response (upstream-answer.ts). */
  send: UpstreamSend;
  /** The same exchange answered as fetch answers (a Response). */
  fetch: UpstreamFetch;
  /** Closes every idle connection (in-flight ones finish). */
  close(): void;
  stats(): { connections: number; idle: number; opened: number };
}

/** One request on one connection, from the first byte written to the body's end. */
interface Exchange extends BodyFeed {
  resolve(answer: UpstreamAnswer): void;
  reject(err: unknown): void;
  /** The request's cancel switch: the caller's, or one a caller's AbortSignal drives. */
  cancel: UpstreamAbort;
  /** Stops listening to the caller's AbortSignal (set only when one was given). */
  unlisten: (() => void) | null;
  responded: boolean;
  /** The request as written, kept to retry it once on a fresh connection (see onClosed). */
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

interface Conn extends SocketHolder {
  origin: Origin;
  /** One per connection, reset for each exchange; its sink forwards to the current exchange. */
  parser: ResponseParser;
  exchange: Exchange | null;
  /** Carried an earlier exchange: a failure before any response byte may be a server's idle close. */
  reused: boolean;
  idleSince: number;
  idleMs: number;
}

export function createHttp1Client(opts: Http1ClientOptions = {}): Http1Client {
  const idleMs = opts.idleMs ?? 30_000;
  const maxIdle = opts.maxIdlePerOrigin ?? 256;
  const pool = new IdlePool<Conn>(idleMs, maxIdle);
  let connections = 0;
  let opened = 0;
  /** The exchange is over (answered, failed or aborted): the signal is let go. */
  const settle = (x: Exchange) => {
    x.unlisten?.();
    x.unlisten = null;
    x.cancel.onAbort(null);
  };

  const fail = (c: Conn, err: unknown) => {
    const x = c.exchange;
    c.exchange = null;
    c.socket?.terminate();
    if (!x) return;
    settle(x);
    if (!x.responded) x.reject(err);
    else if (x.tap) x.tap.error(err);
    else x.over = { error: err };
  };

  const begin = (c: Conn, x: Exchange) => {
    c.exchange = x;
    x.conn = c;
    c.parser.reset(x.noBody);
    // A request in flight keeps the process alive, as fetch's do; an idle one does not (onEnd). With
    // only unref'd sockets left, Bun's event loop polls without blocking: 100 % CPU until the answer.
    c.socket!.ref();
    writeRequest(c, x.payload);
  };

  /** The parser's sink for one connection: what it finds goes to the connection's current exchange. */
  const sinkFor = (c: Conn): ResponseSink => ({
    head: (head) => {
      const x = c.exchange!;
      x.head = head;
      // The rest of this delivery may hold the whole body: then the Response gets it as bytes (no stream).
      x.early = [];
    },
    body: (data, start, end) => {
      const x = c.exchange!;
      // A tap reads the range in place; a piece kept for later is the delivery itself when it is all body,
      // else a copy of its part (response-parser.ts: why not a view). Bun hands each socket read over in a
      // buffer of its own (never reused; http1-client.test.ts checks it).
      if (x.tap && !x.early) return x.tap.piece(data, start, end);
      const piece = owned(data, start, end);
      if (x.early) x.early.push(piece);
      else x.pending?.push(piece);
    },
    end: (keepAlive) => onEnd(c, c.exchange!, keepAlive),
  });

  /** After each delivery: a head that arrived without its whole body answers now, with a streaming body. */
  const flushHead = (c: Conn, x: Exchange) => {
    if (!x.head || x.responded) return;
    x.pending = x.early!;
    x.early = null;
    const head = x.head;
    const streamed = new StreamedAnswer(head, x, () => {
      if (c.exchange === x) fail(c, new DOMException("body cancelled", "AbortError"));
    });
    answer(x, () => (needsDecoding(head) ? answerOf(respond(head, streamed.stream())) : streamed));
  };

  /** Resolves the exchange with an answer, or fails it with what fetch would have thrown for this head. */
  const answer = (x: Exchange, make: () => UpstreamAnswer) => {
    const made = answerFor(x.head!, make);
    if (made instanceof Error) return fail(x.conn!, made);
    x.responded = true;
    x.resolve(made);
  };

  const onEnd = (c: Conn, x: Exchange, keepAlive: boolean) => {
    const streamed = x.responded;
    if (!x.responded) {
      const pieces = x.early!;
      x.early = null;
      const head = x.head!;
      const bytes = pieces.length === 0 ? null : pieces.length === 1 ? pieces[0]! : concatAll(pieces);
      answer(x, () => (needsDecoding(head) ? answerOf(respond(head, bytes)) : new WholeAnswer(head, bytes)));
      if (!x.responded) return;
    }
    c.exchange = null;
    c.socket?.unref();
    settle(x);
    if (keepAlive) pool.park(c, keepAliveTimeout(x.head!));
    else c.socket?.end();
    // The connection is settled first: a tap's end runs the reader's code (the stream's end) at once.
    if (streamed) {
      if (x.tap) x.tap.end();
      else x.over = "end";
    }
    opts.afterExchange?.(streamed);
  };

  const onData = (c: Conn, data: Uint8Array) => {
    const x = c.exchange;
    if (!x) {
      // Bytes nobody asked for: the connection is out of step; drop it.
      pool.remove(c);
      c.socket?.terminate();
      return;
    }
    try {
      c.parser.push(data);
      flushHead(c, x);
    } catch (err) {
      fail(c, err instanceof Http1ParseError ? new TypeError(`malformed upstream response: ${err.message}`) : err);
    }
  };

  const onClosed = (c: Conn, err?: Error) => {
    if (c.socket) connections--;
    c.socket = null;
    pool.remove(c);
    const x = c.exchange;
    if (!x) return;
    // A pooled connection the server closed while idle fails before any byte of the answer: the request
    // never reached it, so it goes once more on a fresh connection (as browsers do).
    if (c.reused && !x.retried && c.parser.untouched && !x.responded) {
      x.retried = true;
      c.exchange = null;
      connect(c.origin).then(
        (fresh) => (x.cancel.aborted ? fail(fresh, x.cancel.reason) : begin(fresh, x)),
        (e: unknown) => {
          settle(x);
          x.reject(e);
        },
      );
      return;
    }
    try {
      c.parser.eof();
      flushHead(c, x);
    } catch (e) {
      fail(c, err ?? new TypeError(`upstream connection closed: ${e instanceof Error ? e.message : String(e)}`));
    }
  };

  const connect = (origin: Origin): Promise<Conn> => {
    const c = { socket: null, origin, exchange: null, reused: false, idleSince: 0, idleMs, outbox: null } as unknown as Conn;
    c.parser = new ResponseParser(sinkFor(c));
    opened++;
    return openSocket(c, origin, opts.ca, {
      up: (s) => {
        // Connections keep the process alive only while they carry a request (begin, onEnd).
        s.unref();
        c.socket = s;
        connections++;
      },
      data: onData,
      closed: onClosed,
    });
  };

  // Most recently parked first: the one least likely to have been closed by the server.
  const acquire = (origin: Origin): Conn | Promise<Conn> => pool.take(origin.key) ?? connect(origin);

  const send: UpstreamSend = (url, init, abort) => {
    // One cancel mechanism inside: a caller's AbortSignal (fetch's way) drives a switch of its own.
    const signal = abort ? null : (init.signal ?? null);
    const cancel = abort ?? new UpstreamAbort();
    if (signal?.aborted) cancel.abort(signal.reason);
    if (cancel.aborted) return Promise.reject(cancel.reason);
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== "string" && !(body instanceof Uint8Array)) {
      return Promise.reject(new TypeError("the upstream client sends string or byte bodies only"));
    }
    const method = (init.method ?? "GET").toUpperCase();
    let origin: Origin;
    let payload: string | Uint8Array;
    try {
      // As fetch does, a request that cannot be sent (bad URL, header or method) is a rejection, not a throw.
      origin = originOf(url);
      payload = requestHead(origin, url, method, init.headers, body ?? null);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<UpstreamAnswer>((resolve, reject) => {
      const x: Exchange = {
        resolve,
        reject,
        cancel,
        unlisten: null,
        pending: null,
        tap: null,
        over: null,
        responded: false,
        payload,
        noBody: method === "HEAD",
        retried: false,
        conn: null,
        early: null,
        head: null,
      };
      const aborted = (reason: unknown) => (x.conn && x.conn.exchange === x ? fail(x.conn, reason) : (settle(x), reject(reason)));
      cancel.onAbort(aborted);
      if (signal) {
        const onSignal = () => cancel.abort(signal.reason);
        signal.addEventListener("abort", onSignal, { once: true });
        x.unlisten = () => signal.removeEventListener("abort", onSignal);
      }
      const start = (c: Conn) => {
        if (cancel.aborted) return pool.park(c, null);
        begin(c, x);
      };
      const got = acquire(origin);
      if (got instanceof Promise)
        got.then(start, (err: unknown) => {
          settle(x);
          reject(err);
        });
      else start(got);
    });
  };

  return {
    send,
    fetch: (url, init, abort) => send(url, init, abort).then((a) => a.response()),
    close: () => pool.close(),
    stats: () => ({ connections, idle: pool.size, opened }),
  };
}
