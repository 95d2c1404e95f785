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
// price is memory, paid back by pacing young collections: see ../upstream-client.ts.
//
// Scope: http and https origins, request bodies given as strings or bytes, responses framed by length,
// chunked coding or close, with gzip/deflate/br/zstd bodies decoded. Requests go without
// `accept-encoding` compression (identity), as a gateway on a fast link gains nothing from it. Another
// scheme is refused (provider base URLs are http(s) by schema). Through an HTTP proxy (`proxy`, proxy.ts)
// http requests go in absolute form and https ones through a CONNECT tunnel. This file runs the exchanges over
// the pool; what an exchange and a connection hold is exchange.ts's, and the socket itself (opening, the
// TLS handshake, partial writes) is socket.ts's.
import { UpstreamAbort } from "../../upstream-abort";
import { Http1ParseError, ResponseParser } from "./response-parser";
import { requestHead, originOf, type Origin } from "./request";
import { IdlePool } from "./idle-pool";
import { proxyChooser, type ProxyFor, type ProxySettings } from "./proxy";
import { openSocket, writeRequest } from "./socket";
import { concatAll, keepAliveTimeout, needsDecoding, respond } from "./response";
import { answerFor, StreamedAnswer, WholeAnswer } from "./answer";
import { ConnSink, letGo, newExchange, type Conn, type Exchange } from "./exchange";
import { answerOf, type UpstreamAnswer, type UpstreamSend } from "../../upstream-answer";

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
  /** Certificate authorities for https origins (PEM) in place of the default ones (tried: Bun replaces them), e.g. a test CA. */
  ca?: string | string[];
  /** HTTP(S)_PROXY and NO_PROXY as configured (config/load.ts); none: every origin is reached straight. */
  proxy?: ProxySettings;
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

export function createHttp1Client(opts: Http1ClientOptions = {}): Http1Client {
  const client = new SocketClient(opts);
  return {
    send: (url, init, abort) => client.send(url, init, abort),
    fetch: (url, init, abort) => client.send(url, init, abort).then((a) => a.response()),
    close: () => client.close(),
    stats: () => client.stats(),
  };
}

class SocketClient {
  private readonly idleMs: number;
  private readonly pool: IdlePool<Conn>;
  private connections = 0;
  private opened = 0;
  /** Null when no proxy is configured: then a request pays nothing for the feature. */
  private readonly proxyFor: ProxyFor | null;
  /** The parsers' end of a body, bound once (ConnSink). */
  private readonly ended = (c: Conn, x: Exchange, keepAlive: boolean) => this.onEnd(c, x, keepAlive);

  constructor(private readonly opts: Http1ClientOptions) {
    this.idleMs = opts.idleMs ?? 30_000;
    this.pool = new IdlePool<Conn>(this.idleMs, opts.maxIdlePerOrigin ?? 256);
    this.proxyFor = proxyChooser(opts.proxy);
  }

  send(url: string, init: RequestInit, abort?: UpstreamAbort): Promise<UpstreamAnswer> {
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
      const proxy = this.proxyFor && !origin.tls ? this.proxyFor(origin) : null;
      payload = requestHead(origin, url, method, init.headers, body ?? null, proxy);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<UpstreamAnswer>((resolve, reject) => {
      const x = newExchange(resolve, reject, cancel, payload, method === "HEAD");
      cancel.onAbort((reason) => (x.conn && x.conn.exchange === x ? this.fail(x.conn, reason) : (letGo(x), reject(reason))));
      if (signal) {
        const onSignal = () => cancel.abort(signal.reason);
        signal.addEventListener("abort", onSignal, { once: true });
        x.unlisten = () => signal.removeEventListener("abort", onSignal);
      }
      // Most recently parked first: the one least likely to have been closed by the server.
      const got = this.pool.take(origin.key) ?? this.connect(origin);
      if (got instanceof Promise)
        got.then(
          (c) => this.start(c, x),
          (err: unknown) => {
            letGo(x);
            reject(err);
          },
        );
      else this.start(got, x);
    });
  }

  close(): void {
    this.pool.close();
  }

  stats(): { connections: number; idle: number; opened: number } {
    return { connections: this.connections, idle: this.pool.size, opened: this.opened };
  }

  /** A connection for `x`, unless it was aborted meanwhile (the connection goes back to the pool). */
  private start(c: Conn, x: Exchange): void {
    if (x.cancel.aborted) return this.pool.park(c, null);
    this.begin(c, x);
  }

  private begin(c: Conn, x: Exchange): void {
    c.exchange = x;
    x.conn = c;
    c.parser.reset(x.noBody);
    // A request in flight keeps the process alive, as fetch's do; an idle one does not (onEnd). With
    // only unref'd sockets left, Bun's event loop polls without blocking: 100 % CPU until the answer.
    c.socket!.ref();
    writeRequest(c, x.payload);
  }

  private fail(c: Conn, err: unknown): void {
    const x = c.exchange;
    c.exchange = null;
    c.socket?.terminate();
    if (!x) return;
    letGo(x);
    if (!x.responded) x.reject(err);
    else if (x.tap) x.tap.error(err);
    else x.over = { error: err };
  }

  /** After each delivery: a head that arrived without its whole body answers now, with a streaming body. */
  private flushHead(c: Conn, x: Exchange): void {
    if (!x.head || x.responded) return;
    x.pending = x.early!;
    x.early = null;
    const head = x.head;
    const streamed = new StreamedAnswer(head, x, () => {
      if (c.exchange === x) this.fail(c, new DOMException("body cancelled", "AbortError"));
    });
    this.answer(x, () => (needsDecoding(head) ? answerOf(respond(head, streamed.stream())) : streamed));
  }

  /** Resolves the exchange with an answer, or fails it with what fetch would have thrown for this head. */
  private answer(x: Exchange, make: () => UpstreamAnswer): void {
    const made = answerFor(x.head!, make);
    if (made instanceof Error) return this.fail(x.conn!, made);
    x.responded = true;
    x.resolve(made);
  }

  private onEnd(c: Conn, x: Exchange, keepAlive: boolean): void {
    const streamed = x.responded;
    if (!x.responded) {
      const pieces = x.early!;
      x.early = null;
      const head = x.head!;
      const bytes = pieces.length === 0 ? null : pieces.length === 1 ? pieces[0]! : concatAll(pieces);
      this.answer(x, () => (needsDecoding(head) ? answerOf(respond(head, bytes)) : new WholeAnswer(head, bytes)));
      if (!x.responded) return;
    }
    c.exchange = null;
    c.socket?.unref();
    letGo(x);
    // A request still being written (an upstream that answered before reading the whole body) leaves the
    // connection out of step: the next request would land inside this one's body, so it is closed.
    if (c.outbox !== null) {
      c.outbox = null;
      c.socket?.terminate();
    } else if (keepAlive) this.pool.park(c, keepAliveTimeout(x.head!));
    else c.socket?.end();
    // The connection is settled first: a tap's end runs the reader's code (the stream's end) at once.
    if (streamed) {
      if (x.tap) x.tap.end();
      else x.over = "end";
    }
    this.opts.afterExchange?.(streamed);
  }

  private onData(c: Conn, data: Uint8Array): void {
    const x = c.exchange;
    if (!x) {
      // Bytes nobody asked for: the connection is out of step; drop it.
      this.pool.remove(c);
      c.socket?.terminate();
      return;
    }
    try {
      c.parser.push(data);
      this.flushHead(c, x);
    } catch (err) {
      this.fail(c, err instanceof Http1ParseError ? new TypeError(`malformed upstream response: ${err.message}`) : err);
    }
  }

  private onClosed(c: Conn, err?: Error): void {
    if (c.socket) this.connections--;
    c.socket = null;
    this.pool.remove(c);
    const x = c.exchange;
    if (!x) return;
    // A pooled connection the server closed while idle fails before any byte of the answer: the request
    // never reached it, so it goes once more on a fresh connection (as browsers do).
    if (c.reused && !x.retried && c.parser.untouched && !x.responded) return this.retry(c, x);
    try {
      c.parser.eof();
      this.flushHead(c, x);
    } catch (e) {
      this.fail(c, err ?? new TypeError(`upstream connection closed: ${e instanceof Error ? e.message : String(e)}`));
    }
  }

  private retry(c: Conn, x: Exchange): void {
    x.retried = true;
    c.exchange = null;
    this.connect(c.origin).then(
      (fresh) => (x.cancel.aborted ? this.fail(fresh, x.cancel.reason) : this.begin(fresh, x)),
      (e: unknown) => {
        letGo(x);
        x.reject(e);
      },
    );
  }

  private connect(origin: Origin): Promise<Conn> {
    const c = { socket: null, origin, exchange: null, reused: false, idleSince: 0, idleMs: this.idleMs, outbox: null } as unknown as Conn;
    c.parser = new ResponseParser(new ConnSink(c, this.ended));
    this.opened++;
    return openSocket(
      c,
      origin,
      this.opts.ca,
      {
        up: (s) => {
          // Connections keep the process alive only while they carry a request (begin, onEnd).
          s.unref();
          c.socket = s;
          this.connections++;
        },
        data: (conn, data) => this.onData(conn, data),
        closed: (conn, err) => this.onClosed(conn, err),
      },
      this.proxyFor?.(origin) ?? null,
    );
  }
}
