// The fetch Response for a parsed head: headers as they came, the body decoded when a content coding
// was applied (requests ask for identity, but a server may send gzip, deflate, br or zstd anyway).
import type { ResponseHead } from "./response-parser";

export type Bytes = Uint8Array<ArrayBuffer>;

const DECODINGS: Record<string, CompressionFormat | "brotli" | "zstd"> = {
  gzip: "gzip",
  "x-gzip": "gzip",
  deflate: "deflate",
  br: "brotli",
  zstd: "zstd",
};

/** The content coding the body must be decoded from (undefined for none or identity). */
function codingOf(head: ResponseHead): string | undefined {
  let encoding: string | undefined;
  for (const [k, v] of head.headers) if (k === "content-encoding") encoding = v.trim().toLowerCase();
  return encoding === "identity" ? undefined : encoding;
}

/** True when respond() will pipe the body through a decoder (so the Response's body is not the one given). */
export const needsDecoding = (head: ResponseHead): boolean => codingOf(head) !== undefined;

export function respond(head: ResponseHead, body: ReadableStream<Bytes> | Bytes | null): Response {
  const encoding = codingOf(head);
  if (encoding && body !== null) {
    const format = DECODINGS[encoding];
    if (!format) throw new TypeError(`unsupported content-encoding from upstream: ${encoding}`);
    const source = body instanceof Uint8Array ? new Blob([body]).stream() : body;
    body = source.pipeThrough(new DecompressionStream(format as CompressionFormat) as unknown as ReadableWritablePair<Bytes, Bytes>);
    // The decoded body has another length, and no encoding left to undo.
    head = { ...head, headers: head.headers.filter(([k]) => k !== "content-encoding" && k !== "content-length") };
  }
  return new Response(body, { status: head.status, statusText: head.statusText, headers: head.headers });
}

/** The server's Keep-Alive timeout, ms (null when it gave none). */
export function keepAliveTimeout(head: ResponseHead): number | null {
  for (const [k, v] of head.headers) {
    if (k !== "keep-alive") continue;
    const m = /timeout=(\d+)/i.exec(v);
    if (m) return Number(m[1]) * 1000;
  }
  return null;
}

export function concatAll(pieces: Bytes[]): Bytes {
  let n = 0;
  for (const p of pieces) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
