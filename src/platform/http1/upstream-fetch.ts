// Chooses how the gateway sends upstream requests: Bun's fetch by default, or the socket client
// (client.ts) when the operator asks for it (SWITCHYARD_UPSTREAM_CLIENT=sockets) — unless the environment
// names an HTTP proxy, which fetch honours and the socket client does not speak.
//
// Why fetch stays the default (bench notes, side by side): the socket client costs ~15 % less CPU per
// stream and ~6 % less per JSON request, but left to JSC's own collections the gateway's resident
// memory under 128 streams rises from ~80–95 MB to ~110–125 MB, past the 100 MB the gateway promises.
// The extra is garbage waiting for a collection, not data held: a forced full collection brings a
// sockets gateway back to 89–92 MB (fetch: ~86). Fetch's 64 KB read buffers count as the heap's extra
// memory, so JSC runs an eden collection every ~4 MB allocated (heap 13–34 MB under 32 streams); the
// socket path allocates small objects only, so edens come every ~20 MB and the heap swings 25–47 MB (GC
// logs, 2026-11-26). With the memory governor on, the gateway therefore paces an eden collection every
// ~100 streams' worth of the socket client's exchanges (`afterExchange`, edenPacer in memory-governor.ts):
// peak ~105 MB, and ~90–95 MB with SWITCHYARD_HEAP_LIMIT_MB=8. It stays opt-in: compiled gateways side by
// side (three per side, 2026-11-26) showed no difference per JSON request and ±10 % per stream either way,
// within this VM's noise; an operator who wants it chooses it (with the 8 MB allowance).
import { createHttp1Client, type UpstreamFetch } from "./client";

export interface UpstreamClient {
  fetch: UpstreamFetch;
  kind: "sockets" | "fetch";
  close(): void;
}

const PROXY_VARS = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/** `afterExchange`: for the socket client, called as each exchange ends (the gateway's edenPacer, memory-governor.ts). */
export function createUpstreamClient(
  kind: "sockets" | "fetch",
  env: Record<string, string | undefined> = process.env,
  afterExchange?: (streamed: boolean) => void,
): UpstreamClient {
  if (kind === "fetch" || PROXY_VARS.some((k) => env[k])) return { fetch: (url, init) => fetch(url, init), kind: "fetch", close() {} };
  const client = createHttp1Client(afterExchange ? { afterExchange } : {});
  return { fetch: client.fetch, kind: "sockets", close: client.close };
}
