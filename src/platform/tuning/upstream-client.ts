// Chooses how the gateway sends upstream requests: the socket client (client.ts) by default, or Bun's
// fetch when the operator asks for it (SWITCHYARD_UPSTREAM_CLIENT=fetch) or turns the tuning off
// (SWITCHYARD_TUNING=off: fetch is the plain path) — or when HTTPS_PROXY is an https:// proxy, which fetch
// reaches https origins through and the socket client does not (tunnel.ts).
// Both honour HTTP(S)_PROXY and NO_PROXY alike (proxy.ts), as configured, never the environment itself.
//
// Why sockets is the default (2026-11-26, three gateways per side, 32 streams): 0.84x fetch's CPU per
// stream from source and 0.80x as compiled binaries, the same per JSON request. Its cost is memory: fetch's
// 64 KB read buffers count as the heap's extra memory, so JSC runs an eden collection every ~4 MB
// allocated; the socket path allocates small objects only, so edens come every ~20 MB and, left alone, the
// gateway's RSS under 128 streams rises to ~110–125 MB (garbage waiting for a collection, not data held).
// With the memory governor on, the gateway therefore paces an eden collection every 250 streamed
// exchanges (`afterExchange`, edenPacer in memory-governor.ts; EDEN_EVERY in tuning.ts says why 250), and its
// default allowance is 3 MB above the live heap (memory-governor.ts says why not 8): peak under 128
// streams ~89–94 MB in most runs, under the 100 MB the gateway promises.
import { createHttp1Client } from "./http1/client";
import { originOf } from "./http1/request";
import { proxyChooser, type ProxyFor, type ProxySettings } from "./http1/proxy";
import { answerOf, type UpstreamSend } from "../upstream-answer";

export interface UpstreamClient {
  send: UpstreamSend;
  kind: "sockets" | "fetch";
  close(): void;
}

export interface UpstreamClientOptions {
  /** HTTP(S)_PROXY and NO_PROXY as configured (config/load.ts). */
  proxy?: ProxySettings;
  /** Certificate authorities trusted for https origins instead of the default ones (PEM), e.g. a test's own. */
  ca?: string | string[];
  /** For the socket client: called as each exchange ends (the gateway's edenPacer, memory-governor.ts). */
  afterExchange?: (streamed: boolean) => void;
  /** SWITCHYARD_TUNING: `off` means fetch whatever `kind` says. */
  tuning?: "on" | "off";
}

export function createUpstreamClient(kind: "sockets" | "fetch", opts: UpstreamClientOptions = {}): UpstreamClient {
  if (kind === "fetch" || opts.tuning === "off" || opts.proxy?.httpsProxy?.startsWith("https:"))
    return { send: fetchSend(opts), kind: "fetch", close() {} };
  const client = createHttp1Client({
    ...(opts.afterExchange ? { afterExchange: opts.afterExchange } : {}),
    ...(opts.proxy ? { proxy: opts.proxy } : {}),
    ...(opts.ca ? { ca: opts.ca } : {}),
  });
  return { send: client.send, kind: "sockets", close: client.close };
}

/** fetch as an UpstreamSend, routed by the configured proxy settings alone. */
function fetchSend(opts: UpstreamClientOptions): UpstreamSend {
  const proxyFor = proxyChooser(opts.proxy);
  const tls = opts.ca ? { ca: opts.ca } : null;
  // `proxy: false` everywhere no proxy is chosen: Bun's fetch would otherwise read the proxy variables
  // (ALL_PROXY among them) by itself. The gateway always passes `abort`, so its init is copied anyway.
  if (!proxyFor && !tls)
    return (url, init, abort) =>
      fetch(url, abort ? { ...init, signal: abort.signal, proxy: false } : { ...init, proxy: false }).then(answerOf);
  return (url, init, abort) => {
    const full: BunFetchRequestInit = { ...init };
    if (abort) full.signal = abort.signal;
    if (proxyFor) full.proxy = routeFor(proxyFor, url)?.fetchOption ?? false;
    if (tls) full.tls = tls;
    return fetch(url, full).then(answerOf);
  };
}

function routeFor(proxyFor: ProxyFor, url: string) {
  try {
    return proxyFor(originOf(url));
  } catch {
    // A URL the socket client refuses is fetch's to refuse too.
    return null;
  }
}
