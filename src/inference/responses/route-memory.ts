// Which route and credential served each Responses ID, so a follow-up naming it in
// `previous_response_id` goes where the response lives (the upstream keeps it, we do not). Keyed by
// workspace: an ID served to another workspace is never found. Entries expire after a TTL (config
// `response_route_ttl_hours`, 30 days by default: how long OpenAI keeps a stored response). Only the credential's identity is kept, never a
// secret: "platform" or the BYOK key's ID.

/** The credential a call was sent with, by identity. */
export type RouteCredential = "platform" | { byokKeyId: string };

export interface ServedRoute {
  providerId: string;
  providerModelId: string;
  /** `${provider}/${providerModelId}`, as in Candidate.routeKey. */
  routeKey: string;
  credential: RouteCredential;
}

export interface ResponseRouteMemory {
  /** Never throws: a memory that cannot be written only costs a later follow-up its route. */
  remember(workspaceId: string, responseId: string, served: ServedRoute, now: number): void | Promise<void>;
  /** The route that served `responseId` in this workspace, or null (unknown, expired, another workspace's). */
  recall(workspaceId: string, responseId: string, now: number): ServedRoute | null | Promise<ServedRoute | null>;
}

export const DEFAULT_RESPONSE_ROUTE_MAX_ENTRIES = 100_000;
/** Upstream IDs are ~50 characters; a longer `previous_response_id` was never remembered, so it is not looked up. */
export const MAX_RESPONSE_ID_LENGTH = 256;

export interface MemoryRouteOptions {
  ttlMs: number;
  /** Beyond this many entries the oldest are forgotten. */
  maxEntries?: number;
}

interface Entry {
  served: ServedRoute;
  expiresAt: number;
}

/** One process's memory: a Map in insertion order, so the oldest entry is first (every entry has the same TTL). */
export class MemoryResponseRouteMemory implements ResponseRouteMemory {
  private readonly entries = new Map<string, Entry>();
  readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(o: MemoryRouteOptions) {
    this.ttlMs = o.ttlMs;
    this.maxEntries = o.maxEntries ?? DEFAULT_RESPONSE_ROUTE_MAX_ENTRIES;
  }

  get size(): number {
    return this.entries.size;
  }

  remember(workspaceId: string, responseId: string, served: ServedRoute, now: number): void {
    if (responseId.length === 0 || responseId.length > MAX_RESPONSE_ID_LENGTH) return;
    const key = entryKey(workspaceId, responseId);
    // Re-inserted at the end, so the Map stays ordered by expiry.
    this.entries.delete(key);
    this.entries.set(key, { served, expiresAt: now + this.ttlMs });
    for (const [k, e] of this.entries) {
      if (e.expiresAt > now && this.entries.size <= this.maxEntries) break;
      this.entries.delete(k);
    }
  }

  recall(workspaceId: string, responseId: string, now: number): ServedRoute | null {
    if (responseId.length > MAX_RESPONSE_ID_LENGTH) return null;
    const key = entryKey(workspaceId, responseId);
    const e = this.entries.get(key);
    if (!e) return null;
    if (e.expiresAt <= now) {
      this.entries.delete(key);
      return null;
    }
    return e.served;
  }
}

// Workspace IDs hold no NUL, so the pair cannot collide with another pair.
const entryKey = (workspaceId: string, responseId: string): string => `${workspaceId}\u0000${responseId}`;
