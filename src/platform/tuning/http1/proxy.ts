// Which upstream requests go through an HTTP proxy: HTTPS_PROXY for https targets, HTTP_PROXY for http
// ones, NO_PROXY's hosts straight. The variables are read once by config/load.ts; both upstream clients
// ask `proxyFor` per origin, and its answers are kept per origin so a request pays one map lookup.
import { isIP } from "node:net";

/** The proxy variables as configured (config/load.ts): URLs with a scheme, and NO_PROXY as written. */
export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

/** A proxy to reach one origin through. */
export interface ProxyRoute {
  /** The proxy URL as configured (Bun's fetch takes it as its `proxy` option). */
  url: string;
  hostname: string;
  port: number;
  /** An https:// proxy: the connection to the proxy itself is TLS. */
  tls: boolean;
  /** `Basic …` from the URL's user:password, else null. */
  authorization: string | null;
  /** Bun fetch's `proxy` option for it: NO_PROXY is decided here, not again by fetch from the environment. */
  fetchOption: { url: string; respectNoProxy: false };
}

/** The proxy for a target (null: connect straight). */
export type ProxyFor = (target: { key: string; hostname: string; port: number; tls: boolean }) => ProxyRoute | null;

interface Exception {
  host: string;
  port: number | null;
  /** An IP literal matches itself only; a name matches itself and its subdomains. */
  exact: boolean;
}

/** NO_PROXY's entries: a comma (or space) list of `*`, names, `.suffix`/`*.suffix`, `host:port`, IP literals. */
export function parseNoProxy(value: string | undefined): Exception[] | "all" {
  const out: Exception[] = [];
  for (const raw of (value ?? "").split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === "*") return "all";
    let port: number | null = null;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1]!;
      port = bracketed[2] ? Number(bracketed[2]) : null;
    } else if (!isIP(entry)) {
      const m = /^(.*):(\d+)$/.exec(entry);
      if (m) {
        entry = m[1]!;
        port = Number(m[2]);
      }
    }
    entry = entry.replace(/^\*?\./, "").replace(/\.$/, "");
    if (entry) out.push({ host: entry, port, exact: isIP(entry) !== 0 });
  }
  return out;
}

export function bypasses(exceptions: Exception[], hostname: string, port: number): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  // An IP address has no subdomains: it matches an entry exactly or not at all.
  const suffixes = isIP(host) === 0;
  for (const e of exceptions) {
    if (e.port !== null && e.port !== port) continue;
    if (host === e.host || (suffixes && !e.exact && host.endsWith(`.${e.host}`))) return true;
  }
  return false;
}

function routeOf(url: string): ProxyRoute {
  const u = new URL(url);
  const tls = u.protocol === "https:";
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  return {
    url,
    hostname: u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname,
    port: u.port ? Number(u.port) : tls ? 443 : 80,
    tls,
    authorization: user || password ? `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` : null,
    fetchOption: { url, respectNoProxy: false },
  };
}

const MAX_KEPT = 1024;

/** The chooser for these settings, or null when no request would ever go through a proxy. */
export function proxyChooser(settings: ProxySettings | undefined): ProxyFor | null {
  if (!settings || (!settings.httpProxy && !settings.httpsProxy)) return null;
  const exceptions = parseNoProxy(settings.noProxy);
  if (exceptions === "all") return null;
  const http = settings.httpProxy ? routeOf(settings.httpProxy) : null;
  const https = settings.httpsProxy ? routeOf(settings.httpsProxy) : null;
  const kept = new Map<string, ProxyRoute | null>();
  return (target) => {
    let route = kept.get(target.key);
    if (route !== undefined) return route;
    const proxy = target.tls ? https : http;
    route = proxy && !bypasses(exceptions, target.hostname, target.port) ? proxy : null;
    if (kept.size >= MAX_KEPT) kept.clear();
    kept.set(target.key, route);
    return route;
  };
}
