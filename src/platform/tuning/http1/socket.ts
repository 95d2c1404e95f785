// The socket under one upstream connection (client.ts): opened, and handshaken when the origin is https,
// before anything is written; a request the socket takes only in part finishes on its next drain.
// Through a proxy (proxy.ts) an http origin's socket goes to the proxy, and an https origin's is a
// CONNECT tunnel through it with TLS to the origin on top (tunnel.ts).
import type { Socket, SocketHandler } from "bun";
import type { Origin } from "./request";
import type { ProxyRoute } from "./proxy";
import { openTunnel } from "./tunnel";

/** What a connection holds for its socket: the socket once open, and the unwritten rest of a request. */
export interface SocketHolder {
  socket: Socket<this> | null;
  /** Unwritten bytes of the request (the socket accepted only part). */
  outbox: Uint8Array | null;
}

export interface SocketEvents<T> {
  /** The socket is open (and handshaken): called once, before the promise of openSocket settles. */
  up(socket: Socket<T>): void;
  data(conn: T, data: Uint8Array): void;
  closed(conn: T, err?: Error): void;
}

const encoder = new TextEncoder();

/** Opens `conn`'s socket to `origin` (or to its proxy); resolves with `conn` once a request may be written to it. */
export function openSocket<T extends SocketHolder>(
  conn: T,
  origin: Origin,
  ca: string | string[] | undefined,
  on: SocketEvents<T>,
  proxy: ProxyRoute | null = null,
): Promise<T> {
  // Ready means open for plain TCP and handshaken for TLS: Bun.connect's own promise settles before a TLS
  // socket's open callback, and a request written then would go nowhere.
  const ready = Promise.withResolvers<T>();
  let isUp = false;
  const up = (s: Socket<T>) => {
    if (isUp) return;
    isUp = true;
    on.up(s);
    ready.resolve(conn);
  };
  const handlers = connectionHandlers(origin, on, ready.reject, up);
  if (proxy && origin.tls) {
    openTunnel(conn, origin, proxy, { serverName: origin.hostname, ...(ca ? { ca } : {}) }, handlers, ready.reject);
    return ready.promise;
  }
  // To the proxy itself for an http origin: the request goes in absolute form (request.ts).
  const to = proxy ?? origin;
  const tls = proxy ? proxy.tls : origin.tls;
  Bun.connect<T>({
    hostname: to.hostname,
    port: to.port,
    data: conn,
    ...(tls ? { tls: ca ? { serverName: to.hostname, ca } : { serverName: to.hostname } } : {}),
    socket: { ...handlers, open: (s) => void (tls || up(s)) },
  }).catch((err: unknown) => ready.reject(err));
  return ready.promise;
}

/** The socket's callbacks once connected to whoever answers the requests (the origin or its proxy). */
function connectionHandlers<T extends SocketHolder>(
  origin: Origin,
  on: SocketEvents<T>,
  reject: (err: unknown) => void,
  up: (s: Socket<T>) => void,
): SocketHandler<T> {
  return {
    binaryType: "uint8array",
    handshake: (s, success, authorizationError) => {
      if (success && !authorizationError) return up(s);
      reject(authorizationError ?? new TypeError(`TLS handshake with ${origin.hostname} failed`));
      s.terminate();
    },
    data: (s, d) => on.data(s.data, d),
    drain: (s) => {
      const rest = s.data.outbox;
      if (!rest) return;
      s.data.outbox = null;
      const n = s.write(rest);
      if (n < rest.length) s.data.outbox = rest.subarray(Math.max(0, n));
    },
    end: (s) => on.closed(s.data),
    close: (s, err) => {
      reject(err ?? new TypeError(`connection to ${origin.hostname}:${origin.port} closed before it was ready`));
      on.closed(s.data, err);
    },
    error: (s, err) => {
      reject(err);
      on.closed(s.data, err);
    },
    // Bun.connect's promise rejects with the error itself.
    connectError: () => {},
  };
}

/** Writes a request; what the socket does not take now waits in the outbox for its drain. A string goes as it is (encoded natively). */
export function writeRequest(conn: SocketHolder, payload: string | Uint8Array): void {
  const n = conn.socket!.write(payload);
  if (typeof payload !== "string") {
    if (n < payload.length) conn.outbox = payload.subarray(Math.max(0, n));
  } else if (n < payload.length || n < Buffer.byteLength(payload)) conn.outbox = encoder.encode(payload).subarray(Math.max(0, n));
}
