// Shared mode (REDIS_URL): the route of each response ID lives in Redis under
// `${REDIS_PREFIX}resp:${workspace}:${id}` with a PX expiry, so a follow-up reaches the response's route
// whichever instance it lands on. The value also carries its expiry, so `now` decides as it does in
// memory. While Redis is down (or a command fails) entries are kept in this instance's memory and
// recalled from there, like the other shared stores' local fallbacks.
import type { RedisConnection } from "../../platform/redis";
import { MAX_RESPONSE_ID_LENGTH, MemoryResponseRouteMemory, type ResponseRouteMemory, type ServedRoute } from "./route-memory";

interface Stored {
  p: string;
  m: string;
  r: string;
  /** The BYOK key's ID, or null for the platform credential. */
  b: string | null;
  /** Epoch ms after which the entry is not recalled. */
  e: number;
}

export class RedisResponseRouteMemory implements ResponseRouteMemory {
  private readonly local: MemoryResponseRouteMemory;

  constructor(
    private readonly redis: RedisConnection,
    readonly ttlMs: number,
  ) {
    this.local = new MemoryResponseRouteMemory({ ttlMs });
  }

  async remember(workspaceId: string, responseId: string, served: ServedRoute, now: number): Promise<void> {
    if (responseId.length === 0 || responseId.length > MAX_RESPONSE_ID_LENGTH) return;
    if (this.redis.isUp()) {
      const value: Stored = {
        p: served.providerId,
        m: served.providerModelId,
        r: served.routeKey,
        b: served.credential === "platform" ? null : served.credential.byokKeyId,
        e: now + this.ttlMs,
      };
      try {
        await this.redis.client.set(this.keyOf(workspaceId, responseId), JSON.stringify(value), "PX", this.ttlMs);
        return;
      } catch {
        // Kept here instead: a follow-up on this instance still finds it.
      }
    }
    this.local.remember(workspaceId, responseId, served, now);
  }

  async recall(workspaceId: string, responseId: string, now: number): Promise<ServedRoute | null> {
    if (responseId.length > MAX_RESPONSE_ID_LENGTH) return null;
    if (this.redis.isUp()) {
      try {
        const found = decode(await this.redis.client.get(this.keyOf(workspaceId, responseId)), now);
        if (found) return found;
      } catch {
        // Fall through to what this instance remembered on its own.
      }
    }
    return this.local.recall(workspaceId, responseId, now);
  }

  keyOf(workspaceId: string, responseId: string): string {
    return this.redis.key("resp", workspaceId, responseId);
  }
}

/** A stored value back to a route; anything malformed or expired is not found. */
function decode(raw: string | null, now: number): ServedRoute | null {
  if (raw === null) return null;
  let v: Partial<Stored>;
  try {
    v = JSON.parse(raw) as Partial<Stored>;
  } catch {
    return null;
  }
  if (typeof v.p !== "string" || typeof v.m !== "string" || typeof v.r !== "string" || typeof v.e !== "number") return null;
  if (v.b !== null && typeof v.b !== "string") return null;
  if (v.e <= now) return null;
  return { providerId: v.p, providerModelId: v.m, routeKey: v.r, credential: v.b === null ? "platform" : { byokKeyId: v.b } };
}
