// A lean HTTP/1.1 client for plain-HTTP upstreams (local vLLM, Ollama, LM Studio, an in-cluster
// model server), with the `fetch` signature the inference pipeline calls. Everything else — https:,
// request bodies that are not a string or bytes, or a configured HTTP proxy — goes to Bun's fetch.
//
// Why hand-written (measured, bench/README): Bun's fetch runs on its own HTTP thread, so every
// response and every streamed chunk crosses threads and wakes JavaScript through a native stream
// queue. A socket from Bun.connect delivers bytes on the JavaScript thread directly. On the benchmark
// machine that cut CPU per non-streaming request by about 20 µs and per 20-chunk stream by ~150 µs,
// where a bare pass-through proxy costs ~50 µs and ~600 µs. No maintained library offers this on Bun
// (undici and node:http are themselves built on fetch there).
//
// Connections are kept alive per origin and reused, most recently used first. A pooled connection
// that the server closed while idle is detected when the request meets a closed socket before any
// response byte: the request is then sent once more on a new connection (at most once).
import type { Socket } from "bun";
import { ParseError, ResponseParser, type ResponseHead } from "./response-parser";

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface Http1ClientOptions {
  /** Idle connections kept per origin. Default 128. */
  maxIdlePerOrigin?: number;
  /**
   * A pooled connection idle longer than this is closed instead of reused (servers close idle
   * connections after a few seconds: uvicorn after 5 s). Default 4000 ms.
   */
  maxIdleMs?: number;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\r\n\0]/;

/** An upstream `fetch`: this client for http: URLs, `fallback` (Bun's fetch) for the rest. */
export function upstreamFetch(fallback: FetchLike, env: Record<string, string | undefined>, opts: Http1ClientOptions = {}): FetchLike {
  // Bun's fetch honours proxy variables; this client does not, so a proxy keeps everything on fetch.
  if (env.HTTP_PROXY || env.http_proxy || env.ALL_PROXY || env.all_proxy) return fallback;
  const client = new Http1Client(opts);
  return (url, init) => {
    const body = init.body;
    const plain = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
    return url.startsWith("http://") && plain ? client.request(url, init) : fallback(url, init);
  };
}

type Handlers = Parameters<typeof Bun.connect<Connection>>[0]["socket"];

/** A pooled connection the server had closed: nothing was answered, the request may be sent again. */
class StaleConnectionError extends Error {
  override name = "StaleConnectionError";
}

/** One request and its response on a connection. */
class Exchange {
  readonly parser: ResponseParser;
  /** Response bytes seen: a reused connection that closes before any is stale. */
  received = 0;
  private settled = false;
  private head: ResponseHead | null = null;
  /** Body bytes that came with the head, held until the network read is processed (publish). */
  private early: Uint8Array[] = [];
  body: ReadableStreamDefaultController<Uint8Array> | null = null;
  /** Removes the abort listener; run once when the exchange ends, however it ends. */
  cleanup: () => void = () => {};

  constructor(
    private readonly conn: Connection,
    private readonly resolve: (r: Response) => void,
    private readonly reject: (err: unknown) => void,
    noBody: boolean,
  ) {
    this.parser = new ResponseParser(
      {
        head: (h) => (this.head = h),
        // A copy: the socket's buffer is not ours to keep.
        body: (bytes) => (this.body ? this.body.enqueue(bytes.slice()) : this.early.push(bytes.slice())),
        end: () => this.closeBody(),
      },
      undefined,
      noBody,
    );
  }

  /**
   * After a network read: once the head is in, the caller gets its Response. A body that arrived
   * whole with the head (the usual small JSON answer) becomes a plain byte body; otherwise the body
   * is a stream fed as bytes arrive.
   */
  publish(): void {
    const h = this.head;
    if (this.settled || !h) return;
    this.settled = true;
    const init = { status: h.status, statusText: h.statusText, headers: h.headers };
    if (this.parser.complete) {
      const bytes = this.early.length === 1 ? this.early[0]! : Buffer.concat(this.early);
      this.early = [];
      return this.resolve(new Response(h.status === 204 || h.status === 304 ? null : (bytes as Uint8Array<ArrayBuffer>), init));
    }
    const conn = this.conn;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          for (const b of this.early) c.enqueue(b);
          this.early = [];
          this.body = c;
        },
        // Back-pressure: the socket is paused while the consumer's queue is full (afterData).
        pull: () => {
          conn.socket?.resume();
        },
        cancel: () => {
          this.body = null;
          conn.destroy(); // the rest of the body is unwanted: the connection cannot be reused
        },
      },
      { highWaterMark: 16 },
    );
    this.resolve(new Response(stream, init));
  }

  closeBody(): void {
    const body = this.body;
    this.body = null;
    body?.close();
  }

  /** The connection failed or was aborted: fail whoever is waiting (the caller, or the body's reader). */
  fail(err: unknown): void {
    if (!this.settled) {
      this.settled = true;
      this.reject(err);
    } else if (this.body) {
      const body = this.body;
      this.body = null;
      body.error(err);
    }
  }

  afterData(): void {
    const c = this.body;
    if (c && c.desiredSize !== null && c.desiredSize <= 0) this.conn.socket?.pause();
  }
}

class Connection {
  socket: Socket<Connection> | null = null;
  exchange: Exchange | null = null;
  closed = false;
  uses = 0;
  idleSince = 0;
  /** Request bytes not yet accepted by the socket (a large body meeting back-pressure). */
  private pending: Uint8Array | null = null;

  constructor(
    private readonly pool: Http1Client,
    readonly origin: string,
  ) {}

  start(ex: Exchange, bytes: Uint8Array): void {
    this.exchange = ex;
    this.uses++;
    this.send(bytes);
  }

  private send(bytes: Uint8Array): void {
    const n = this.closed || !this.socket ? -1 : this.socket.write(bytes);
    if (n < 0) return this.lost(new TypeError(`Connection to ${this.origin} closed`));
    this.pending = n < bytes.length ? bytes.subarray(n) : null;
  }

  drain(): void {
    if (this.pending) this.send(this.pending);
  }

  data(chunk: Uint8Array): void {
    const ex = this.exchange;
    if (!ex) return this.destroy(); // bytes nobody asked for: the connection is out of step
    ex.received += chunk.length;
    try {
      ex.parser.feed(chunk);
    } catch (err) {
      const reason = err instanceof ParseError ? new TypeError(`Bad response from ${this.origin}: ${err.message}`) : err;
      return this.lost(reason as Error, false);
    }
    ex.publish();
    if (ex.parser.complete) return this.released(ex);
    ex.afterData();
  }

  /** The response is complete: back to the pool, or closed when it cannot carry another request. */
  private released(ex: Exchange): void {
    this.exchange = null;
    ex.cleanup();
    if (this.closed || this.pending !== null || !ex.parser.keepAlive) return this.destroy();
    this.pool.giveBack(this);
  }

  /** The socket closed or failed, or the exchange was abandoned. */
  lost(err: Error, mayBeStale = true): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.socket?.terminate();
    } catch {
      // already gone
    }
    const ex = this.exchange;
    this.exchange = null;
    if (!ex) return;
    ex.cleanup();
    // A body framed by the end of the connection is complete now.
    if (ex.parser.readsToClose) {
      ex.publish();
      return ex.closeBody();
    }
    ex.fail(mayBeStale && ex.received === 0 && this.uses > 1 ? new StaleConnectionError(err.message) : err);
  }

  destroy(): void {
    this.lost(new TypeError(`Connection to ${this.origin} closed`), false);
  }
}

export class Http1Client {
  private readonly idle = new Map<string, Connection[]>();
  private readonly maxIdle: number;
  private readonly maxIdleMs: number;
  private readonly handlers: Handlers = {
    data: (s, d) => s.data.data(d),
    drain: (s) => s.data.drain(),
    close: (s, err) => s.data.lost(err ?? new TypeError(`Connection to ${s.data.origin} closed by the server`)),
    error: (s, err) => s.data.lost(err),
    end: (s) => s.data.lost(new TypeError(`Connection to ${s.data.origin} closed by the server`)),
  };

  constructor(opts: Http1ClientOptions = {}) {
    this.maxIdle = opts.maxIdlePerOrigin ?? 128;
    this.maxIdleMs = opts.maxIdleMs ?? 4000;
  }

  async request(url: string, init: RequestInit): Promise<Response> {
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const u = new URL(url);
    const method = (init.method ?? "GET").toUpperCase();
    const bytes = serialize(method, u, init);
    const port = Number(u.port || 80);
    const origin = `${u.hostname}:${port}`;
    for (let attempt = 0; ; attempt++) {
      const conn = this.take(origin) ?? (await this.connect(u.hostname, port, origin));
      if (signal?.aborted) {
        conn.destroy();
        throw signal.reason;
      }
      try {
        return await this.exchange(conn, bytes, method === "HEAD", signal);
      } catch (err) {
        if (err instanceof StaleConnectionError && attempt === 0) continue;
        throw err instanceof StaleConnectionError ? new TypeError(err.message) : err;
      }
    }
  }

  private exchange(conn: Connection, bytes: Uint8Array, noBody: boolean, signal: AbortSignal | undefined): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
      const ex = new Exchange(conn, resolve, reject, noBody);
      if (signal) {
        const onAbort = () => conn.lost(signal.reason, false);
        signal.addEventListener("abort", onAbort, { once: true });
        // The listener goes when the exchange does: the signal may outlive the request.
        ex.cleanup = () => signal.removeEventListener("abort", onAbort);
      }
      conn.start(ex, bytes);
    });
  }

  private async connect(hostname: string, port: number, origin: string): Promise<Connection> {
    const conn = new Connection(this, origin);
    try {
      conn.socket = await Bun.connect<Connection>({ hostname, port, socket: this.handlers, data: conn });
    } catch (err) {
      throw new TypeError(`Could not connect to ${origin}: ${err instanceof Error ? err.message : String(err)}`);
    }
    conn.socket.setNoDelay(true);
    return conn;
  }

  private take(origin: string): Connection | null {
    const list = this.idle.get(origin);
    const now = performance.now();
    while (list && list.length > 0) {
      const c = list.pop()!;
      if (c.closed) continue;
      if (now - c.idleSince > this.maxIdleMs) {
        c.destroy();
        continue;
      }
      return c;
    }
    return null;
  }

  giveBack(c: Connection): void {
    let list = this.idle.get(c.origin);
    if (!list) this.idle.set(c.origin, (list = []));
    if (list.length >= this.maxIdle) return c.destroy();
    c.idleSince = performance.now();
    list.push(c);
  }

  /** Closes every idle connection (shutdown, tests). */
  close(): void {
    for (const list of this.idle.values()) for (const c of list) c.destroy();
    this.idle.clear();
  }
}

/** The request head and body as one buffer (one write for a small request). */
function serialize(method: string, u: URL, init: RequestInit): Uint8Array {
  let head = `${method} ${u.pathname}${u.search} HTTP/1.1\r\nhost: ${u.host}\r\n`;
  let headers = (init.headers ?? {}) as Record<string, string>;
  if (init.headers instanceof Headers) {
    headers = {};
    init.headers.forEach((v, k) => (headers[k] = v));
  }
  for (const name in headers) {
    const value = String(headers[name]);
    // What fetch would refuse: a value with CR/LF could smuggle headers (a key from a BYOK store).
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) throw new TypeError(`Invalid header '${name}'`);
    const lower = name.toLowerCase();
    if (lower === "host" || lower === "content-length" || lower === "connection" || lower === "transfer-encoding") continue;
    head += `${name}: ${value}\r\n`;
  }
  const body = init.body as string | Uint8Array | null | undefined;
  const bodyBytes = body == null ? null : typeof body === "string" ? Buffer.from(body) : body;
  if (bodyBytes !== null || method === "POST" || method === "PUT" || method === "PATCH")
    head += `content-length: ${bodyBytes?.length ?? 0}\r\n`;
  head += "\r\n";
  return bodyBytes ? Buffer.concat([Buffer.from(head, "latin1"), bodyBytes]) : Buffer.from(head, "latin1");
}
