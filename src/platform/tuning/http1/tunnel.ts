// A CONNECT tunnel through an HTTP proxy for an https origin: a TCP socket to the proxy asks for the
// origin's host and port, and once the proxy answers 2xx the same socket is upgraded to TLS with the
// origin (Bun's socket.upgradeTLS), whose callbacks are then the connection's own (socket.ts).
import type { Socket, SocketHandler, TLSOptions } from "bun";
import type { Origin } from "./request";
import type { ProxyRoute } from "./proxy";

/** The longest proxy answer to a CONNECT read before giving up on it. */
const MAX_HEAD = 16 * 1024;
const latin1 = new TextDecoder("latin1");

export function openTunnel<T>(
  conn: T,
  origin: Origin,
  proxy: ProxyRoute,
  tls: TLSOptions,
  handlers: SocketHandler<T>,
  reject: (err: unknown) => void,
): void {
  // TLS to the origin inside TLS to the proxy: Bun's upgradeTLS on a TLS socket returns nothing and never
  // handshakes (tried on 1.4.5), so an https:// proxy for https origins is fetch's (../upstream-client.ts).
  if (proxy.tls) return reject(new TypeError("the socket client reaches https origins through http:// proxies only"));
  const authority = origin.hostname.includes(":") ? `[${origin.hostname}]:${origin.port}` : `${origin.hostname}:${origin.port}`;
  const auth = proxy.authorization ? `proxy-authorization: ${proxy.authorization}\r\n` : "";
  const request = `CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n${auth}\r\n`;
  let head = "";
  let upgraded = false;
  const refuse = (s: Socket<T>, err: Error) => {
    reject(err);
    s.terminate();
  };
  Bun.connect<T>({
    hostname: proxy.hostname,
    port: proxy.port,
    data: conn,
    socket: {
      binaryType: "uint8array",
      open: (s) => void s.write(request),
      data: (s, d) => {
        // After the upgrade the raw socket still hears the encrypted bytes; the TLS socket has them.
        if (upgraded) return;
        head += latin1.decode(d);
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) {
          if (head.length > MAX_HEAD) refuse(s, new TypeError(`proxy ${proxy.hostname}:${proxy.port} sent an oversized CONNECT answer`));
          return;
        }
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
        if (!status || !status[1]!.startsWith("2")) {
          const line = head.slice(0, head.indexOf("\r\n"));
          return refuse(s, new TypeError(`proxy ${proxy.hostname}:${proxy.port} refused CONNECT ${authority}: ${line}`));
        }
        // The origin speaks only after the client's hello: bytes here are the proxy's, out of step.
        if (end + 4 < head.length)
          return refuse(s, new TypeError(`proxy ${proxy.hostname}:${proxy.port} sent bytes after its CONNECT answer`));
        upgraded = true;
        // From here the TLS socket is the connection's (ref'd only while it carries a request: client.ts).
        s.upgradeTLS<T>({ data: conn, tls, socket: handlers });
      },
      close: (_s, err) => {
        if (!upgraded) reject(err ?? new TypeError(`proxy ${proxy.hostname}:${proxy.port} closed before the tunnel opened`));
      },
      error: (_s, err) => {
        if (!upgraded) reject(err);
      },
      connectError: () => {},
    },
  }).catch((err: unknown) => reject(err));
}
