// The one ID generator: time-ordered UUIDs (v7) for records, CSPRNG base62 for secrets.
import { randomBytes } from "node:crypto";

export const newId = (): string => Bun.randomUUIDv7();

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** n base62 characters from the CSPRNG, with rejection sampling so every character is uniform. */
export function randomBase62(n: number): string {
  let out = "";
  while (out.length < n) {
    for (const b of randomBytes(n * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === n) break;
    }
  }
  return out;
}

export function sha256Hex(s: string): string {
  return new Bun.CryptoHasher("sha256").update(s).digest("hex");
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** A client's X-Request-ID is honoured when it is short and plain; otherwise we make one. */
export function requestIdFrom(header: string | null): string {
  // Time-ordered (UUIDv7): request records and debit rows are keyed by it, and ordered keys append to
  // the end of their B-trees instead of dirtying pages all over them (random IDs made every batch's
  // commit several times dearer). One native call per request, no per-character loop.
  return header && REQUEST_ID.test(header) ? header : `req_${Bun.randomUUIDv7().replaceAll("-", "")}`;
}
