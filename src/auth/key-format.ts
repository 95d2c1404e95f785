// API key format: `ak_` + 40 base62 characters. Only the SHA-256 of the key is stored (keys carry ~238
// bits of entropy, so a slow hash buys nothing), plus a display prefix.
import { randomBase62, sha256Hex } from "../platform/ids";

export const KEY_PATTERN = /^ak_[A-Za-z0-9]{32,128}$/;

export function generateApiKey(): string {
  return `ak_${randomBase62(40)}`;
}

export const hashApiKey = (key: string): string => sha256Hex(key);

export const displayPrefix = (key: string): string => key.slice(0, 10);
