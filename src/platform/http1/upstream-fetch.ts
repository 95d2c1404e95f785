// Chooses how the gateway sends upstream requests. The socket client (client.ts) by default; Bun's fetch
// when the operator asks for it (SWITCHYARD_UPSTREAM_CLIENT=fetch) or when the environment names an HTTP
// proxy, which fetch honours and the socket client does not speak.
import { createHttp1Client, type UpstreamFetch } from "./client";

export interface UpstreamClient {
  fetch: UpstreamFetch;
  kind: "sockets" | "fetch";
  close(): void;
}

const PROXY_VARS = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

export function createUpstreamClient(kind: "sockets" | "fetch", env: Record<string, string | undefined> = process.env): UpstreamClient {
  if (kind === "fetch" || PROXY_VARS.some((k) => env[k])) return { fetch: (url, init) => fetch(url, init), kind: "fetch", close() {} };
  const client = createHttp1Client();
  return { fetch: client.fetch, kind: "sockets", close: client.close };
}
