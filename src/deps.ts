// createDeps(config): builds every long-lived dependency once and hands them to the app. Nothing else
// opens connections or reads the environment.
import { AbortSweeper } from "./platform/abort-sweeper";
import { ConfigError, type Config } from "./config/load";
import { openDatabase, type Database } from "./platform/db/database";
import { createLogger, type Logger } from "./platform/logger";
import { workspaceRepo, type WorkspaceRepo } from "./management/workspaces/repo";
import { apiKeyRepo, type ApiKeyRepo } from "./management/api-keys/repo";
import { ApiKeyCache } from "./auth/key-cache";
import { buildCatalog } from "./catalog/build";
import type { Catalog } from "./catalog/types";
import { HealthStore } from "./routing/health";
import { RecordWriter } from "./metering/record-writer";
import { dbErrorMessage } from "./platform/db/refusal";
import type { InferenceDeps } from "./inference/context";
import { CreditService } from "./metering/credits";
import { MemoryCreditHolds } from "./metering/credit-holds";
import { SequentialReservations, type Reservations } from "./metering/reservations";
import { MemoryBudgetCounters, type BudgetCounters } from "./metering/budgets";
import { budgetFromRow } from "./metering/budget-spend";
import { meteringGuards } from "./metering/guards";
import type { RequestRecord } from "./metering/request-record";
import { MemoryRateLimiter } from "./limits/memory-store";
import { resolveLimits } from "./limits/classes";
import type { RateLimiter } from "./limits/limiter";
import { createManagement, type Management } from "./management/module";
import { loadMasterKey } from "./platform/master-key";
import { publishingEvents } from "./management/invalidation";
import { noEvents, type ManagementEvents } from "./management/events";
import { createManagementStores } from "./management/stores";
import type { SharedMode } from "./shared-mode";
import type { UpstreamClient } from "./platform/tuning/upstream-client";
import { createTuning, type Tuning } from "./platform/tuning/tuning";
import { MemoryResponseRouteMemory, type ResponseRouteMemory } from "./inference/responses/route-memory";
import { MemoryStickyStore, type StickyStore } from "./inference/sticky/store";
import { ResponseStore } from "./inference/responses/store/store";
import { tracingSettings } from "./observability/tracing/settings";
import { GatewayMetrics } from "./observability/metrics/gateway-metrics";

export interface Deps {
  config: Config;
  logger: Logger;
  db: Database;
  repos: { workspaces: WorkspaceRepo; apiKeys: ApiKeyRepo };
  keys: ApiKeyCache;
  catalog: Catalog;
  health: HealthStore;
  records: RecordWriter;
  credits: CreditService;
  budgets: BudgetCounters;
  limiter: RateLimiter;
  inference: InferenceDeps;
  /** The Prometheus families behind GET /metrics (observability/metrics). */
  metrics: GatewayMetrics;
  /** Which route and credential served each Responses ID (Redis in shared mode), for `previous_response_id`. */
  responseRoutes: ResponseRouteMemory;
  /** The Responses the gateway keeps, in the database (config `responses.store`, on by default). */
  responseStore?: ResponseStore;
  /** Shared mode (REDIS_URL set): the Redis connection, invalidation bus and shared limiters. */
  shared?: SharedMode;
  /** The control plane: repositories, the routing-defaults and BYOK stores the hot path reads. */
  management: Management;
  /** What runs only for speed or memory (platform/tuning/tuning.ts): the upstream client, the memory governor (`serve` starts it). */
  tuning: Tuning;
  /** Set while draining on shutdown: /readyz answers 503. */
  state: { shuttingDown: boolean; startedAt: number };
  /** Loads the in-memory state (stores, balances, budget spend) and starts the background refreshers; after migrations. */
  start(): Promise<void>;
  close(): Promise<void>;
}

function loadCatalog(config: Config): Catalog {
  try {
    return buildCatalog({ file: config.file, credentialEnv: config.credentialEnv });
  } catch (err) {
    throw new ConfigError(`${config.configPath ?? "built-in catalog"}: ${(err as Error).message}`);
  }
}

function healthStore(config: Config): HealthStore {
  const circuit = config.file.circuit;
  return new HealthStore({
    ...(circuit?.failure_threshold ? { failureThreshold: circuit.failure_threshold } : {}),
    ...(circuit?.cooldown_ms ? { cooldownMs: circuit.cooldown_ms } : {}),
    halfLifeMs: config.routing.sampleHalfLifeMs,
    exploreShare: config.routing.exploreShare,
  });
}

/** Management writes reach the budget counters at once and, in shared mode, every other instance. */
function managementEvents(budgets: BudgetCounters, shared: SharedMode | undefined, logger: Logger): ManagementEvents {
  const local: ManagementEvents = {
    ...noEvents,
    // Never let a failed counter update become an unhandled rejection (which would end the process).
    onBudgetChanged: (change) =>
      void Promise.resolve(
        change.kind === "deleted" ? budgets.removeBudget(change.budget.id) : budgets.upsertBudget(budgetFromRow(change.budget)),
      ).catch((err: unknown) => logger.error("budget counters not updated; they reload from the database", { error: String(err) })),
  };
  return shared ? publishingEvents(local, shared.bus) : local;
}

/** Credit balances in memory, and the write-behind record queue whose batches carry their debits. */
function metering(db: Database, logger: Logger) {
  const credits = new CreditService(db, { onError: (err) => logger.warn("credit balance refresh failed", { error: String(err) }) });
  const records = new RecordWriter(db, {
    onFlushed: (batch) => credits.markFlushed(batch),
    onError: (err, queued) => logger.error("request records not written; will retry", { error: dbErrorMessage(err), queued }),
    onDeadLetter: (r, error) =>
      logger.error("request record refused by the database; set aside in dead_letter_records", {
        record_id: r.recordId,
        request_id: r.requestId,
        workspace_id: r.workspaceId,
        error,
      }),
  });
  return { credits, records };
}

function inferenceDeps(d: {
  config: Config;
  logger: Logger;
  catalog: Catalog;
  health: HealthStore;
  management: Management;
  credits: CreditService;
  records: RecordWriter;
  budgets: BudgetCounters;
  reservations: Reservations;
  upstream: UpstreamClient;
  responseRoutes: ResponseRouteMemory;
  responseStore: ResponseStore | undefined;
  sticky: StickyStore | undefined;
  metrics: GatewayMetrics;
}): InferenceDeps {
  const { credits, records } = d;
  return {
    catalog: d.catalog,
    health: d.health,
    // What the workspace stored: the planner fills in the built-in defaults itself (no object per request).
    routingDefaults: { get: (ws) => d.management.routingDefaults.stored(ws) },
    byok: d.management.byok,
    // Credits move in memory the moment a cost settles; the debit reaches the ledger with the record batch.
    records: {
      enqueue(record: RequestRecord) {
        credits.debitRecord(record);
        d.metrics.record(record);
        records.enqueue(record);
      },
    },
    guards: meteringGuards({
      credits,
      reservations: d.reservations,
      budgets: d.budgets,
      writer: records,
      enforceCredits: d.config.file.credits?.enforce === true,
      onBudgetRefused: d.metrics.budgetRefused,
    }),
    logger: d.logger,
    send: d.upstream.send,
    aborts: new AbortSweeper(),
    responseRoutes: d.responseRoutes,
    ...(d.responseStore ? { responseStore: d.responseStore } : {}),
    sticky: d.sticky,
    streams: { opened: d.metrics.streamOpened, closed: d.metrics.streamClosed },
    keepAliveMs: 15_000,
  };
}

export async function createDeps(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<Deps> {
  const catalog = loadCatalog(config);
  // The OpenTelemetry SDK is loaded only when an OTLP endpoint is set (observability/tracing/otel.ts).
  const traced = tracingSettings(config.tracing.otelEnv);
  const tracing = traced && (await import("./observability/tracing/otel")).startTracing(traced, config.tracing.recordContent, logger);
  const db = await openDatabase(config.databaseUrl);
  const repos = { workspaces: workspaceRepo(db), apiKeys: apiKeyRepo(db) };
  const keys = new ApiKeyCache(repos.apiKeys);
  // The hot-path stores first: shared mode's invalidation subscriber refreshes them.
  const stores = createManagementStores({ db, logger, masterKey: () => loadMasterKey(config.masterKey, config.dataDir, logger) });
  const health = healthStore(config);
  const { credits, records } = metering(db, logger);
  const limits = resolveLimits(config.file.limits);
  // Redis code is loaded only in shared mode (ioredis alone is ~8 MB of resident memory).
  const shared = config.redisUrl
    ? (await import("./shared-mode")).createSharedMode({
        url: config.redisUrl,
        prefix: config.redisPrefix,
        logger,
        db,
        limits,
        keys,
        apiKeys: repos.apiKeys,
        management: stores,
        responseRouteTtlMs: config.responseRouteTtlMs,
        stickyTtlMs: config.routing.stickyTtlMs,
        health,
      })
    : undefined;
  const budgets: BudgetCounters = shared?.budgets ?? new MemoryBudgetCounters(db);
  // Management is wired once, after what its writes reach (the budget counters, shared mode's bus and lock).
  const management = createManagement({
    db,
    logger,
    shared: shared !== undefined,
    keys,
    repos,
    stores,
    catalog: () => catalog,
    events: managementEvents(budgets, shared, logger),
    ...(shared ? { idempotencyLock: shared.idempotencyLock } : {}),
    validationTimeoutMs: config.byokValidationTimeoutMs,
    playgroundKeyTtlMs: config.file.playground_key_ttl_hours === undefined ? undefined : config.file.playground_key_ttl_hours * 3_600_000,
  });
  const metrics = new GatewayMetrics({ catalog, health, records, workspaceLabel: config.metrics.workspaceLabel });
  const limiter: RateLimiter = metrics.countingLimiter(shared?.limiter ?? new MemoryRateLimiter(limits));
  const tuning = createTuning(config, logger);
  const upstream = tuning.upstream;
  const reservations: Reservations = shared?.reservations ?? new SequentialReservations(new MemoryCreditHolds(), budgets);
  const responseRoutes: ResponseRouteMemory = shared?.responseRoutes ?? new MemoryResponseRouteMemory({ ttlMs: config.responseRouteTtlMs });
  const { enabled, ttlMs, maxBytes } = config.responsesStore;
  const responseStore = enabled ? new ResponseStore(db, { ttlMs, maxBytes }, logger) : undefined;
  // routing.sticky_ttl_s 0 turns sticky routing off.
  const stickyTtlMs = config.routing.stickyTtlMs;
  const sticky = stickyTtlMs > 0 ? (shared?.sticky ?? new MemoryStickyStore({ ttlMs: stickyTtlMs })) : undefined;
  const inference = inferenceDeps({
    config,
    logger,
    catalog,
    health,
    management,
    credits,
    records,
    budgets,
    reservations,
    upstream,
    responseRoutes,
    responseStore,
    sticky,
    metrics,
  });
  if (tracing) inference.tracing = tracing;
  return {
    config,
    logger,
    db,
    repos,
    keys,
    catalog,
    health,
    records,
    credits,
    budgets,
    limiter,
    inference,
    metrics,
    responseRoutes,
    ...(responseStore ? { responseStore } : {}),
    ...(shared ? { shared } : {}),
    management,
    tuning,
    state: { shuttingDown: false, startedAt: Date.now() },
    async start() {
      await Promise.all([management.start(), credits.load(), budgets.load(), shared?.start()]);
      credits.start();
      keys.startTouching();
      responseStore?.startSweeping();
    },
    async close() {
      credits.stop();
      management.stop();
      keys.stop();
      await keys.flushTouches();
      responseStore?.stop();
      const [drained, kept] = await Promise.all([records.drain(10_000), responseStore?.drain(10_000)]);
      if (!drained.complete) logger.error("shutdown: request records not written", { remaining: drained.remaining });
      if (kept === false) logger.error("shutdown: stored responses not written", { remaining: responseStore!.queued() });
      tuning.stop();
      await tracing?.shutdown();
      await shared?.close();
      await db.close();
    },
  };
}
