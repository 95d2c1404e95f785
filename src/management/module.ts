// createManagement(): the control plane wired once. Each feature in `features` gets exactly what its
// routes call (its repository, the audit writer, a transaction runner, the events, the clock, config
// values), built here and never changed afterwards; deps.ts passes every collaborator in.
import type { Catalog } from "../catalog/types";
import type { ApiKeyCache } from "../auth/key-cache";
import type { Database } from "../platform/db/database";
import type { Logger } from "../platform/logger";
import type { ApiKeyRepo } from "./api-keys/repo";
import type { WorkspaceRepo } from "./workspaces/repo";
import { auditRepo, auditWriter, type Transact } from "./audit/repo";
import { budgetRepo, type BudgetRow } from "./budgets/repo";
import { budgetFromRow, loadSpend } from "../metering/budget-spend";
import { DEFAULT_BYOK_VALIDATION_TIMEOUT_MS } from "../config/load";
import { validateWithAdapter, type CredentialValidator } from "./byok-keys/credential";
import { noEvents, type ManagementEvents } from "./events";
import { MemoryIdempotencyLock, type IdempotencyLock } from "./idempotency/lock";
import { idempotencyStore } from "./idempotency/store";
import { inviteRepo } from "./invites/repo";
import { memberRepo } from "./members/repo";
import { requestRepo } from "./requests/repo";
import { seriesRepo } from "./usage/series-repo";
import { usageRepo } from "./usage/repo";
import type { ManagementStores } from "./stores";

export interface ManagementOptions {
  db: Database;
  logger: Logger;
  /** Shared mode (REDIS_URL set): other instances apply writes asynchronously, so writes answer 202. */
  shared: boolean;
  keys: ApiKeyCache;
  repos: { workspaces: WorkspaceRepo; apiKeys: ApiKeyRepo };
  /** The hot-path stores (stores.ts), built first: shared mode's subscriber refreshes them. */
  stores: ManagementStores;
  catalog: () => Catalog;
  validateCredential?: CredentialValidator;
  /** How long a BYOK key's provider check may take, ms (config `byok_validation_timeout_ms`). */
  validationTimeoutMs?: number;
  events?: ManagementEvents;
  idempotencyLock?: IdempotencyLock;
  /** A playground key's expiry when its create body names none, ms (config `playground_key_ttl_hours`). */
  playgroundKeyTtlMs?: number;
  /** The clock of the converted features (tests may pin it). */
  now?: () => number;
}

export const DEFAULT_PLAYGROUND_KEY_TTL_MS = 24 * 3_600_000;

export function createManagement(o: ManagementOptions) {
  const stores = o.stores;
  const repos = {
    ...o.repos,
    ...stores.repos,
    audit: auditRepo(o.db),
    budgets: budgetRepo(o.db),
    invites: inviteRepo(o.db),
    members: memberRepo(o.db),
    requests: requestRepo(o.db),
    usage: usageRepo(o.db),
    idempotency: idempotencyStore(o.db),
  };
  const idempotency = { store: repos.idempotency, lock: o.idempotencyLock ?? new MemoryIdempotencyLock() };
  const tx: Transact = (fn) => o.db.tx(fn);
  const audit = auditWriter(o.db);
  const now = o.now ?? Date.now;
  const events = o.events ?? noEvents;
  const m = {
    db: o.db,
    logger: o.logger,
    shared: o.shared,
    keys: o.keys,
    repos,
    masterKey: stores.masterKey,
    catalog: o.catalog,
    events,
    idempotency,
    /** Hot path: the router reads routing defaults here, synchronously. */
    routingDefaults: stores.routingDefaults,
    /** Hot path: `byok.defaultKeyFor(workspaceId, providerId)`, synchronously. */
    byok: stores.byok,
    /** What each converted feature's routes call, and nothing else. */
    features: {
      workspaces: { workspaces: repos.workspaces, tx, audit },
      billing: { db: o.db, workspaces: repos.workspaces, now },
      audit: { audit: repos.audit },
      usage: { usage: repos.usage, series: seriesRepo(o.db), now },
      requests: { requests: repos.requests, tx, audit },
      members: { members: repos.members, tx, audit, now },
      invites: { invites: repos.invites, members: repos.members, tx, audit, now },
      apiKeys: {
        apiKeys: repos.apiKeys,
        keys: o.keys,
        events,
        playgroundKeyTtlMs: o.playgroundKeyTtlMs ?? DEFAULT_PLAYGROUND_KEY_TTL_MS,
        shared: o.shared,
        tx,
        audit,
        now,
        usage: repos.usage,
      },
      budgets: {
        budgets: repos.budgets,
        apiKeys: repos.apiKeys,
        catalog: o.catalog,
        events,
        spend: (b: BudgetRow, start: number, end: number): Promise<number> => loadSpend(o.db, budgetFromRow(b), start, end),
        shared: o.shared,
        tx,
        audit,
        now,
      },
      byok: {
        byok: repos.byok,
        store: stores.byok,
        catalog: o.catalog,
        masterKey: stores.masterKey,
        validate: o.validateCredential ?? validateWithAdapter,
        validationTimeoutMs: o.validationTimeoutMs ?? DEFAULT_BYOK_VALIDATION_TIMEOUT_MS,
        events,
        shared: o.shared,
        tx,
        audit,
        logger: o.logger,
        now,
      },
      routingDefaults: {
        repo: repos.routingDefaults,
        store: stores.routingDefaults,
        catalog: o.catalog,
        events,
        shared: o.shared,
        tx,
        audit,
        now,
      },
    },
    reload: stores.reload,
    refresh: stores.refresh,
    start: stores.start,
    stop: stores.stop,
  };
  return m as Readonly<Omit<typeof m, "features">> & { readonly features: Fixed<typeof m.features> };
}

/** Fixed once built: neither the object's fields nor a feature's collaborators are reassigned afterwards. */
type Fixed<F> = { readonly [K in keyof F]: Readonly<F[K]> };
export type Management = ReturnType<typeof createManagement>;
