// The bytes of an HTTP/1.1 request, and the origin (scheme, host, port) its connection is pooled by.
import type { ProxyRoute } from "./proxy";

export interface Origin {
  /** Pool key: scheme://host:port. */
  key: string;
  hostname: string;
  port: number;
  tls: boolean;
  /** The Host header: the port only when it is not the scheme's default. */
  host: string;
}

interface Parsed {
  origin: Origin;
  /** Path and query, as the request line carries them. */
  target: string;
}

/** URLs repeat (a provider's base URL plus a few paths), so each is parsed once; bounded all the same. */
const parsed = new Map<string, Parsed>();
const MAX_PARSED = 1024;

function parse(url: string): Parsed {
  let p = parsed.get(url);
  if (p) return p;
  const u = new URL(url);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new TypeError(`unsupported upstream URL scheme: ${u.protocol}`);
  const tls = u.protocol === "https:";
  const port = u.port ? Number(u.port) : tls ? 443 : 80;
  // An IPv6 literal is bracketed in URLs and Host headers, bare for the socket.
  const hostname = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
  p = {
    origin: { key: `${u.protocol}//${u.hostname}:${port}`, hostname, port, tls, host: u.host },
    target: `${u.pathname}${u.search}`,
  };
  if (parsed.size >= MAX_PARSED) parsed.clear();
  parsed.set(url, p);
  return p;
}

export function originOf(url: string): Origin {
  return parse(url).origin;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Field values may not carry CR, LF or NUL: a credential or header that did would split the request.
const UNSAFE_VALUE = /[\r\n\0]/;
const encoder = new TextEncoder();

/**
 * The request line, headers and body, ready for the socket. Host, Content-Length and (unless given)
 * identity Accept-Encoding are set here; Connection is left to HTTP/1.1's keep-alive default. Through a
 * `proxy` (an http origin's), the target goes in absolute form, with the proxy's credentials if it has any.
 */
export function requestHead(
  origin: Origin,
  url: string,
  method: string,
  headers: HeadersInit | undefined,
  body: string | Uint8Array | null,
  proxy: ProxyRoute | null = null,
): string | Uint8Array {
  const { target } = parse(url);
  if (!TOKEN.test(method)) throw new TypeError(`invalid method: ${method}`);
  let head = proxy
    ? `${method} http://${origin.host}${target} HTTP/1.1\r\nhost: ${origin.host}\r\n${proxy.authorization ? `proxy-authorization: ${proxy.authorization}\r\n` : ""}`
    : `${method} ${target} HTTP/1.1\r\nhost: ${origin.host}\r\n`;
  let encoding = false;
  let agent = false;
  const add = (name: string, value: string) => {
    if (!TOKEN.test(name)) throw new TypeError(`invalid header name: ${JSON.stringify(name)}`);
    if (UNSAFE_VALUE.test(value)) throw new TypeError(`invalid value for header '${name}'`);
    const lower = name.toLowerCase();
    if (lower === "host" || lower === "content-length" || lower === "transfer-encoding" || lower === "connection") return;
    if (lower === "accept-encoding") encoding = true;
    else if (lower === "user-agent") agent = true;
    head += `${name}: ${value}\r\n`;
  };
  if (headers instanceof Headers || Array.isArray(headers)) for (const [k, v] of headers as Iterable<[string, string]>) add(k, v);
  else if (headers) for (const k in headers) add(k, (headers as Record<string, string>)[k]!);
  if (!encoding) head += "accept-encoding: identity\r\n";
  if (!agent) head += "user-agent: Switchyard\r\n";
  if (body === null) return method === "GET" || method === "HEAD" ? `${head}\r\n` : `${head}content-length: 0\r\n\r\n`;
  if (typeof body === "string") return `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const start = encoder.encode(`${head}content-length: ${body.length}\r\n\r\n`);
  const out = new Uint8Array(start.length + body.length);
  out.set(start);
  out.set(body, start.length);
  return out;
}
