// An API key row as the key cache holds it, for unit tests of the cache that answer its reads by hand.
import { hashApiKey } from "../../src/auth/key-format";
import type { ApiKeyRow } from "../../src/management/api-keys/repo";

export function keyRow(presented: string, revokedAt: number | null = null): ApiKeyRow {
  return {
    id: "key_1",
    workspaceId: "ws_1",
    name: "k",
    keyHash: hashApiKey(presented),
    keyPrefix: presented.slice(0, 8),
    scopes: [],
    playground: false,
    createdAt: 0,
    updatedAt: 0,
    expiresAt: null,
    lastUsedAt: null,
    revokedAt,
  };
}
