// Verifies API keys on the hot path from memory. A miss reads the database once (so keys created by the
// CLI or another instance work at once); hits are re-checked against the database in the background
// every REFRESH_MS so that changes made elsewhere heal. Revocation through this process evicts at once.
import { KEY_PATTERN, hashApiKey } from "./key-format";
import type { ApiKeyRepo, ApiKeyRow } from "../management/api-keys/repo";
import { withDeadline } from "../platform/deadline";

const REFRESH_MS = 2_000;
/** An entry older than this is re-read before answering, so a change made elsewhere (another instance,
 * a missed invalidation message, the CLI) is enforced within 5 s even on a key idle for a while. */
const MAX_STALE_MS = 4_000;
const NEGATIVE_TTL_MS = 1_000;
/** Unknown keys remembered at most; a flood of random keys cannot grow the cache without bound. */
const MAX_NEGATIVE = 10_000;
const TOUCH_EVERY_MS = 60_000;
/** How long a request waits to re-read a stale entry: past it the cached row answers, as when the
 * database is unreachable (a stopped database's queries queue in the driver for seconds). */
const STALE_READ_MS = 250;
/** How long a request waits to look up a key it has never seen: past it, or on a failure, 503. */
const MISS_READ_MS = 1_000;
const UNAVAILABLE = Symbol("unavailable");
/** A key whose lookup found no database is answered "unavailable" for this long without another lookup:
 * the rate limiter's check and authentication's, or a client's retries, each waited MISS_READ_MS. */
const UNAVAILABLE_TTL_MS = 1_000;
const LATE = Symbol("late");

export type KeyCheck =
  { ok: true; key: ApiKeyRow } | { ok: false; reason: "missing" | "malformed" | "unknown" | "expired" | "revoked" | "unavailable" };

interface Entry {
  row: ApiKeyRow | null;
  loadedAt: number;
  refreshing: boolean;
  /** The answer for a valid row, made once per entry (verify runs on every request). */
  ok?: KeyCheck;
}

export class ApiKeyCache {
  private readonly byHash = new Map<string, Entry>();
  private readonly negative = new Map<string, number>();
  private readonly unavailableAt = new Map<string, number>();
  private readonly touched = new Map<string, number>();
  private touchTimer: ReturnType<typeof setInterval> | undefined;
  /** Counts put()/evictById() calls: a load that saw it move while reading holds a row older than the change. */
  private changes = 0;

  constructor(private readonly repo: ApiKeyRepo) {}

  /**
   * The answer for a presented key: synchronous when the cache can give it (the hot path: no promise,
   * no resumption per request), a promise when the database must be read first.
   */
  verify(presented: string | null | undefined, now = Date.now()): KeyCheck | Promise<KeyCheck> {
    if (!presented) return { ok: false, reason: "missing" };
    if (!KEY_PATTERN.test(presented)) return { ok: false, reason: "malformed" };
    const hash = hashApiKey(presented);
    const missAt = this.negative.get(hash);
    if (missAt !== undefined && now - missAt <= NEGATIVE_TTL_MS) return { ok: false, reason: "unknown" };
    const entry = this.byHash.get(hash);
    if (entry && now - entry.loadedAt <= MAX_STALE_MS) {
      if (now - entry.loadedAt > REFRESH_MS && !entry.refreshing) this.refreshInBackground(hash, entry);
      return this.answer(entry, now);
    }
    if (!entry) {
      const downAt = this.unavailableAt.get(hash);
      if (downAt !== undefined && now - downAt <= UNAVAILABLE_TTL_MS) return { ok: false, reason: "unavailable" };
    }
    return this.load(hash, entry, now);
  }

  /** A miss or a stale entry: read the row, then answer. */
  private async load(hash: string, entry: Entry | undefined, now: number): Promise<KeyCheck> {
    const seen = this.changes;
    if (!entry) {
      const found = await this.read(hash, MISS_READ_MS, UNAVAILABLE);
      if (found === UNAVAILABLE) return this.unavailable(hash);
      this.unavailableAt.delete(hash);
      if (this.changes !== seen) return this.afterChange(hash, now);
      if (!found) {
        if (this.negative.size >= MAX_NEGATIVE) this.negative.clear();
        this.negative.set(hash, now);
        return { ok: false, reason: "unknown" };
      }
      this.negative.delete(hash);
      entry = { row: found, loadedAt: now, refreshing: false };
      this.byHash.set(hash, entry);
    } else {
      // Stale: re-read before answering. If the database is unreachable the entry we have is the best
      // answer; if it is only slow, that entry answers too and the read lands when it comes.
      const reading = this.repo.byHash(hash);
      const row = await withDeadline<ApiKeyRow | undefined | typeof LATE>(reading, STALE_READ_MS, () => LATE).catch(
        () => entry!.row ?? undefined,
      );
      if (this.changes !== seen) return this.afterChange(hash, now);
      const late = row === LATE;
      entry = { row: late ? entry.row : (row ?? null), loadedAt: now, refreshing: late };
      this.byHash.set(hash, entry);
      if (late) this.refreshInBackground(hash, entry, reading);
    }
    return this.answer(entry, now);
  }

  /** Remembered from when the lookup gave up (not when it began: it waited up to MISS_READ_MS). */
  private unavailable(hash: string): KeyCheck {
    if (this.unavailableAt.size >= MAX_NEGATIVE) this.unavailableAt.clear();
    this.unavailableAt.set(hash, Date.now());
    return { ok: false, reason: "unavailable" };
  }

  /** The stored row, or `fallback` when the database fails or takes longer than `ms`. */
  private read<F>(hash: string, ms: number, fallback: F): Promise<ApiKeyRow | undefined | F> {
    return withDeadline<ApiKeyRow | undefined | F>(this.repo.byHash(hash), ms, () => fallback).catch(() => fallback);
  }

  /**
   * A revocation (or any change) reached the cache while the row was being read: the change wins over
   * the row read before it. An evicted key is read once more, and not cached.
   */
  private async afterChange(hash: string, now: number): Promise<KeyCheck> {
    const current = this.byHash.get(hash);
    if (current) return this.answer(current, now);
    const row = await this.read(hash, MISS_READ_MS, UNAVAILABLE);
    if (row === UNAVAILABLE) return this.unavailable(hash);
    return this.answer({ row: row ?? null, loadedAt: now, refreshing: false }, now);
  }

  private answer(entry: Entry, now: number): KeyCheck {
    const row = entry.row;
    if (!row) return { ok: false, reason: "unknown" };
    if (row.revokedAt !== null) return { ok: false, reason: "revoked" };
    if (row.expiresAt !== null && row.expiresAt <= now) return { ok: false, reason: "expired" };
    this.touched.set(row.id, now);
    return (entry.ok ??= { ok: true, key: row });
  }

  private refreshInBackground(hash: string, entry: Entry, reading = this.repo.byHash(hash)): void {
    entry.refreshing = true;
    reading
      // Only if nothing replaced the entry meanwhile: a revocation applied by put()/evictById() during the
      // read must not be overwritten by the row read before it.
      .then((row) => {
        if (this.byHash.get(hash) === entry) this.byHash.set(hash, { row: row ?? null, loadedAt: Date.now(), refreshing: false });
      })
      .catch(() => {
        entry.refreshing = false;
      });
  }

  /** The row of a key this cache holds (revoked or stale included), without reading the database: the rate limiter's bucket choice. */
  cachedRow(hash: string): ApiKeyRow | undefined {
    return this.byHash.get(hash)?.row ?? undefined;
  }

  /** Applies a change made through this process (or announced by another instance) at once. */
  put(row: ApiKeyRow): void {
    this.changes++;
    this.negative.delete(row.keyHash);
    this.byHash.set(row.keyHash, { row, loadedAt: Date.now(), refreshing: false });
  }

  evictById(id: string): void {
    this.changes++;
    for (const [hash, e] of this.byHash) if (e.row?.id === id) this.byHash.delete(hash);
  }

  /** Writes last_used_at in the background, at most once a minute per key. */
  startTouching(): void {
    this.touchTimer = setInterval(() => void this.flushTouches(), TOUCH_EVERY_MS);
    this.touchTimer.unref?.();
  }

  async flushTouches(): Promise<void> {
    if (this.touched.size === 0) return;
    const at = Date.now();
    const ids = [...this.touched.keys()];
    this.touched.clear();
    await this.repo.touch(ids, at).catch(() => undefined);
  }

  stop(): void {
    if (this.touchTimer) clearInterval(this.touchTimer);
  }
}
