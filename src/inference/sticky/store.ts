// Which route holds each conversation's prompt cache (sticky routing, issue 54 item 6): session key
// (session-id.ts, already scoped to its workspace) → route key, for a TTL (config
// `routing.sticky_ttl_s`, 10 minutes by default) that restarts each time the route serves the session,
// as a provider's cache lives on while it is read. Bounded: beyond maxEntries the oldest are forgotten.

export interface StickyStore {
  readonly ttlMs: number;
  /** The route the session is stuck to, or undefined (unknown, expired). Synchronous when known locally. */
  lookup(session: string): string | undefined | Promise<string | undefined>;
  /** The route served the session: it is stuck there for the TTL from now. Never throws, never blocks. */
  remember(session: string, routeKey: string): void;
}

/** ~50k live conversations per instance (~10 MB at most): far more than one instance serves in 10 minutes. */
export const DEFAULT_STICKY_MAX_ENTRIES = 50_000;

export interface MemoryStickyOptions {
  ttlMs: number;
  maxEntries?: number;
  /** Epoch ms (Date.now by default); tests pass a simulated clock. */
  now?: () => number;
}

interface Entry {
  routeKey: string;
  expiresAt: number;
  /** When the shared copy (Redis) of this entry expires, if this instance knows of one. */
  sharedUntil?: number;
}

/** One process's memory: a Map in insertion order, so the entry used longest ago is first. */
export class MemoryStickyStore implements StickyStore {
  private readonly entries = new Map<string, Entry>();
  readonly ttlMs: number;
  readonly now: () => number;
  private readonly maxEntries: number;

  constructor(o: MemoryStickyOptions) {
    this.ttlMs = o.ttlMs;
    this.now = o.now ?? Date.now;
    this.maxEntries = o.maxEntries ?? DEFAULT_STICKY_MAX_ENTRIES;
  }

  get size(): number {
    return this.entries.size;
  }

  lookup(session: string): string | undefined {
    const e = this.entries.get(session);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(session);
      return undefined;
    }
    return e.routeKey;
  }

  remember(session: string, routeKey: string): void {
    this.put(session, routeKey, this.now() + this.ttlMs);
  }

  /** The live entry of a session (its route, expiry and shared copy's expiry), or undefined. */
  entry(session: string): Readonly<Entry> | undefined {
    return this.lookup(session) === undefined ? undefined : this.entries.get(session);
  }

  /** Keeps an entry until `expiresAt` (an entry learnt from Redis keeps the expiry it has there). */
  put(session: string, routeKey: string, expiresAt: number, sharedUntil?: number): void {
    // Re-inserted at the end, so the Map stays ordered by last use.
    this.entries.delete(session);
    this.entries.set(session, sharedUntil === undefined ? { routeKey, expiresAt } : { routeKey, expiresAt, sharedUntil });
    const now = this.now();
    for (const [k, e] of this.entries) {
      if (e.expiresAt > now && this.entries.size <= this.maxEntries) break;
      this.entries.delete(k);
    }
  }
}
