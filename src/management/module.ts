// createManagement(): the control plane's repositories, in-memory stores and collaborators in one
// object that the routes and services receive. Mutable collaborators (events, catalog, validator,
// timeout) are plain fields so the composition root and tests can swap them after construction.
import type { Catalog } from "../catalog/types";
import type { ApiKeyCache } from "../auth/key-cache";
import type { Database } from "../platform/db/database";
import type { Logger } from "../platform/logger";
import type { MasterKey } from "../platform/master-key";
import type { ApiKeyRepo } from "./api-keys/repo";
import type { WorkspaceRepo } from "./workspaces/repo";
import { auditRepo } from "./audit/repo";
import { budgetRepo, type BudgetRow } from "./budgets/repo";
import { budgetFromRow, loadSpend } from "../metering/budget-spend";
import { byokRepo } from "./byok-keys/repo";
import { ByokKeyStore } from "./byok-keys/store";
import { DEFAULT_VALIDATION_TIMEOUT_MS, validateWithAdapter, type CredentialValidator } from "./byok-keys/credential";
import { noEvents, type ManagementEvents } from "./events";
import { MemoryIdempotencyLock, type IdempotencyLock } from "./idempotency/lock";
import { idempotencyStore } from "./idempotency/store";
import { inviteRepo } from "./invites/repo";
import { memberRepo } from "./members/repo";
import { requestRepo } from "./requests/repo";
import { routingDefaultsRepo } from "./routing-defaults/repo";
import { RoutingDefaultsStore } from "./routing-defaults/store";
import { usageRepo } from "./usage/repo";

export interface ManagementOptions {
  db: Database;
  logger: Logger;
  /** Shared mode (REDIS_URL set): other instances apply writes asynchronously, so writes answer 202. */
  shared: boolean;
  keys: ApiKeyCache;
  repos: { workspaces: WorkspaceRepo; apiKeys: ApiKeyRepo };
  /** Loaded on first use, so commands that never touch BYOK keys never create a key file. */
  masterKey: () => MasterKey;
  catalog: () => Catalog;
  validateCredential?: CredentialValidator;
  validationTimeoutMs?: number;
  events?: ManagementEvents;
  idempotencyLock?: IdempotencyLock;
  /** How often the in-memory stores re-read the database (changes by other processes), ms. */
  refreshMs?: number;
  /** A playground key's expiry when its create body names none, ms (config `playground_key_ttl_hours`). */
  playgroundKeyTtlMs?: number;
}

export const DEFAULT_PLAYGROUND_KEY_TTL_MS = 24 * 3_600_000;

export function createManagement(o: ManagementOptions) {
  const repos = {
    ...o.repos,
    audit: auditRepo(o.db),
    budgets: budgetRepo(o.db),
    byok: byokRepo(o.db),
    invites: inviteRepo(o.db),
    members: memberRepo(o.db),
    requests: requestRepo(o.db),
    routingDefaults: routingDefaultsRepo(o.db),
    usage: usageRepo(o.db),
    idempotency: idempotencyStore(o.db),
  };
  const masterKey = memo(o.masterKey);
  const byok = new ByokKeyStore(repos.byok, masterKey, o.logger);
  let timer: ReturnType<typeof setInterval> | undefined;
  /** data_version as of the last re-read (refresh). */
  let seenVersion: number | null = null;
  const m = {
    db: o.db,
    logger: o.logger,
    shared: o.shared,
    keys: o.keys,
    repos,
    masterKey,
    catalog: o.catalog,
    validateCredential: o.validateCredential ?? validateWithAdapter,
    validationTimeoutMs: o.validationTimeoutMs ?? DEFAULT_VALIDATION_TIMEOUT_MS,
    events: o.events ?? noEvents,
    idempotencyLock: o.idempotencyLock ?? new MemoryIdempotencyLock(),
    playgroundKeyTtlMs: o.playgroundKeyTtlMs ?? DEFAULT_PLAYGROUND_KEY_TTL_MS,
    /** A budget's spend in [start, end), microdollars: request records by default; the composition root
     * may point it at the live budget counters (which also see records not yet flushed). */
    budgetSpend: (b: BudgetRow, start: number, end: number): Promise<number> => loadSpend(o.db, budgetFromRow(b), start, end),
    /** Hot path: the router reads routing defaults here, synchronously. */
    routingDefaults: new RoutingDefaultsStore(repos.routingDefaults),
    /** Hot path: `byok.defaultKeyFor(workspaceId, providerId)`, synchronously. */
    byok,
    /** Re-reads both stores from the database. */
    async reload(): Promise<void> {
      await Promise.all([m.routingDefaults.reload(), m.byok.reload()]);
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
        await m.reload();
        seenVersion = version;
      } catch (err) {
        seenVersion = null; // try again at the next tick
        failed(o.logger, err);
      }
      return true;
    },
    /** Loads the stores now and refreshes them every refreshMs. Idempotent; call after migrations. */
    async start(): Promise<void> {
      if (!timer) {
        timer = setInterval(() => void m.refresh(), o.refreshMs ?? 2_000);
        timer.unref?.();
      }
      await m.refresh(true);
    },
    stop(): void {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
  return m;
}
export type Management = ReturnType<typeof createManagement>;

function failed(logger: Logger, err: unknown): void {
  logger.warn("management stores could not be refreshed", { error: err instanceof Error ? err.message : String(err) });
}

function memo<T>(f: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= f());
}
