// API key format: `ak_` + 40 base62 characters. Only the SHA-256 of the key is stored (keys carry ~238
// bits of entropy, so a slow hash buys nothing), plus a display prefix.
import { randomBase62, sha256Hex } from "../platform/ids";

export const KEY_PATTERN = /^ak_[A-Za-z0-9]{32,128}$/;

export function generateApiKey(): string {
  return `ak_${randomBase62(40)}`;
}

// The rate limiter and the key cache both need a presented key's hash on every request; remember the
// hashes of recent keys (bounded, so a flood of random keys cannot grow it without limit).
const recentHashes = new Map<string, string>();
const RECENT_MAX = 10_000;

export function hashApiKey(key: string): string {
  let h = recentHashes.get(key);
  if (h === undefined) {
    h = sha256Hex(key);
    if (recentHashes.size >= RECENT_MAX) recentHashes.clear();
    recentHashes.set(key, h);
  }
  return h;
}

export const displayPrefix = (key: string): string => key.slice(0, 10);
