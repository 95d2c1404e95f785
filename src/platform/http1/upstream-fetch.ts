// Chooses how the gateway sends upstream requests: the socket client (client.ts) by default, or Bun's
// fetch when the operator asks for it (SWITCHYARD_UPSTREAM_CLIENT=fetch) — or when the environment names
// an HTTP proxy, which fetch honours and the socket client does not speak.
//
// Why sockets is the default (2026-11-26, three gateways per side, 32 streams): 0.84x fetch's CPU per
// stream from source and 0.80x as compiled binaries, the same per JSON request. Its cost is memory: fetch's
// 64 KB read buffers count as the heap's extra memory, so JSC runs an eden collection every ~4 MB
// allocated; the socket path allocates small objects only, so edens come every ~20 MB and, left alone, the
// gateway's RSS under 128 streams rises to ~110–125 MB (garbage waiting for a collection, not data held).
// With the memory governor on, the gateway therefore paces an eden collection every 250 streamed
// exchanges (`afterExchange`, edenPacer in memory-governor.ts; EDEN_EVERY in deps.ts says why 250), and its
// default allowance is 3 MB above the live heap (memory-governor.ts says why not 8): peak under 128
// streams ~89–94 MB in most runs, under the 100 MB the gateway promises.
import { createHttp1Client } from "./client";
import { answerOf, type UpstreamSend } from "../upstream-answer";

export interface UpstreamClient {
  send: UpstreamSend;
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
  if (kind === "fetch" || PROXY_VARS.some((k) => env[k])) {
    const send: UpstreamSend = (url, init, abort) => fetch(url, abort ? { ...init, signal: abort.signal } : init).then(answerOf);
    return { send, kind: "fetch", close() {} };
  }
  const client = createHttp1Client(afterExchange ? { afterExchange } : {});
  return { send: client.send, kind: "sockets", close: client.close };
}
