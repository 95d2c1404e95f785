// The control plane's in-memory stores the hot path reads synchronously (routing defaults, BYOK keys),
// with their periodic re-read. Built before the rest of the control plane: shared mode's invalidation
// subscriber refreshes them, and the management features are wired after shared mode exists.
import type { Database } from "../platform/db/database";
import type { Logger } from "../platform/logger";
import type { MasterKey } from "../platform/master-key";
import { byokRepo } from "./byok-keys/repo";
import { ByokKeyStore } from "./byok-keys/store";
import { routingDefaultsRepo } from "./routing-defaults/repo";
import { RoutingDefaultsStore } from "./routing-defaults/store";

export interface StoreOptions {
  db: Database;
  logger: Logger;
  /** Loaded on first use, so commands that never touch BYOK keys never create a key file. */
  masterKey: () => MasterKey;
  /** How often the stores re-read the database (changes by other processes), ms. */
  refreshMs?: number;
}

export function createManagementStores(o: StoreOptions) {
  const repos = { byok: byokRepo(o.db), routingDefaults: routingDefaultsRepo(o.db) };
  const masterKey = memo(o.masterKey);
  let timer: ReturnType<typeof setInterval> | undefined;
  /** data_version as of the last re-read (refresh). */
  let seenVersion: number | null = null;
  const s = {
    repos,
    masterKey,
    /** Hot path: the router reads routing defaults here, synchronously. */
    routingDefaults: new RoutingDefaultsStore(repos.routingDefaults),
    /** Hot path: `byok.defaultKeyFor(workspaceId, providerId)`, synchronously. */
    byok: new ByokKeyStore(repos.byok, masterKey, o.logger),
    /** Re-reads both stores from the database. */
    async reload(): Promise<void> {
      await Promise.all([s.routingDefaults.reload(), s.byok.reload()]);
    },
    /**
     * One refresh tick: re-reads the stores unless nothing was committed elsewhere since the last re-read
     * (`always`: whatever the version says); false when it skipped. Failures are logged, not thrown.
     *
     * Writes through this process apply to the stores at once; the periodic re-read is for writes made
     * elsewhere. On SQLite the connection's data_version says whether any were committed since the last
     * re-read: the two queries and their row mapping were ~1.3 % of the JavaScript thread at 8 streams
     * (bench/NOTES.md), every 2 s whether or not anything had changed. Postgres has no such
     * number (null): it re-reads every time. The version is read before the re-read, so that a write
     * committed while it runs is seen by the next tick.
     */
    async refresh(always = false): Promise<boolean> {
      try {
        const version = o.db.dataVersion();
        if (!always && version !== null && version === seenVersion) return false;
        await s.reload();
        seenVersion = version;
      } catch (err) {
        seenVersion = null; // try again at the next tick
        o.logger.warn("management stores could not be refreshed", { error: err instanceof Error ? err.message : String(err) });
      }
      return true;
    },
    /** Loads the stores now and refreshes them every refreshMs. Idempotent; call after migrations. */
    async start(): Promise<void> {
      if (!timer) {
        timer = setInterval(() => void s.refresh(), o.refreshMs ?? 2_000);
        timer.unref?.();
      }
      await s.refresh(true);
    },
    stop(): void {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
  return s;
}
export type ManagementStores = ReturnType<typeof createManagementStores>;

function memo<T>(f: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= f());
}
