// Shared mode (REDIS_URL): each conversation's sticky route lives in Redis under
// `${REDIS_PREFIX}sticky:${session key}` with a PX expiry, so a conversation keeps its cache route
// whichever instance a turn lands on. This instance's memory sits in front: a session it knows (it
// served it, or read it from Redis earlier) is answered without a round trip, and only a session it has
// not seen costs one GET. The caller asks only when a candidate route has a cheap cache read
// (sticky/route.ts), so most requests never reach Redis here. Writes are fire-and-forget; while Redis
// is down the memory alone answers, like the other shared stores' local fallbacks. A session that moved
// to another route on another instance is followed here once this instance's copy expires.
import type { RedisConnection } from "../../platform/redis";
import { MemoryStickyStore, type StickyStore } from "./store";

interface Stored {
  /** The route key. */
  r: string;
  /** Epoch ms after which the entry is not used (the clock decides, as in memory). */
  e: number;
}

/** The share of the TTL within which a turn does not rewrite the shared copy of the same route. */
const REWRITE_SHARE = 0.1;

export interface RedisStickyOptions {
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}

export class RedisStickyStore implements StickyStore {
  readonly local: MemoryStickyStore;
  readonly ttlMs: number;

  constructor(
    private readonly redis: RedisConnection,
    o: RedisStickyOptions,
  ) {
    this.ttlMs = o.ttlMs;
    this.local = new MemoryStickyStore(o);
  }

  lookup(session: string): string | undefined | Promise<string | undefined> {
    const known = this.local.lookup(session);
    if (known !== undefined || !this.redis.isUp()) return known;
    return this.fetch(session);
  }

  remember(session: string, routeKey: string): void {
    const expiresAt = this.local.now() + this.ttlMs;
    const prev = this.local.entry(session);
    // A turn soon after the shared copy was written leaves it be: an agent's turns seconds apart would
    // otherwise rewrite the same value each time, and the copy then ends at most REWRITE_SHARE of the TTL early.
    if (prev?.routeKey === routeKey && prev.sharedUntil !== undefined && prev.sharedUntil - expiresAt > -this.ttlMs * REWRITE_SHARE) {
      this.local.put(session, routeKey, expiresAt, prev.sharedUntil);
      return;
    }
    if (!this.redis.isUp()) return this.local.put(session, routeKey, expiresAt);
    this.local.put(session, routeKey, expiresAt, expiresAt);
    const value: Stored = { r: routeKey, e: expiresAt };
    // A lost write only costs another instance this session's stickiness.
    this.redis.client.set(this.keyOf(session), JSON.stringify(value), "PX", this.ttlMs).catch(() => undefined);
  }

  keyOf(session: string): string {
    return this.redis.key("sticky", session);
  }

  private async fetch(session: string): Promise<string | undefined> {
    let raw: string | null;
    try {
      raw = await this.redis.client.get(this.keyOf(session));
    } catch {
      return undefined;
    }
    const found = decode(raw, this.local.now());
    if (found) this.local.put(session, found.r, found.e, found.e);
    return found?.r;
  }
}

/** A stored value; anything malformed or expired is not found. */
function decode(raw: string | null, now: number): Stored | null {
  if (raw === null) return null;
  let v: Partial<Stored>;
  try {
    v = JSON.parse(raw) as Partial<Stored>;
  } catch {
    return null;
  }
  if (typeof v.r !== "string" || typeof v.e !== "number" || v.e <= now) return null;
  return { r: v.r, e: v.e };
}
