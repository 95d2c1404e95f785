// Shared mode (REDIS_URL, docs/configuration.md): several instances on one Postgres and one Redis. Postgres
// stays the system of record; Redis carries what must be common to all instances at request speed:
// rate-limit buckets, budget spend and reservations, Idempotency-Key locks, invalidation messages, and
// which route served each Responses ID (so a `previous_response_id` follow-up finds it on any instance).
// Everything here degrades to per-instance behaviour while Redis is down and rejoins when it returns.
//
// Router statistics are shared too (routing/redis-health-sync.ts): every instance's attempt outcomes
// (TTFT, throughput, success or failure) reach the others in batches within about 100 ms, over pub/sub
// and off the hot path, so the fleet learns one set of estimates and a route that fails on one instance
// opens its circuit on the others; a capped log of the last batches lets a joining instance start warm.
// Each instance still keeps its own HealthStore and decides locally.
// Credit balances are per instance (refreshed from Postgres by CreditService); the holds of calls in
// flight against them are shared.
import type { ApiKeyCache } from "./auth/key-cache";
import type { LimitTable } from "./limits/classes";
import { RedisResponseRouteMemory } from "./inference/responses/redis-route-memory";
import { RedisStickyStore } from "./inference/sticky/redis-store";
import { RedisRateLimiter } from "./limits/redis-store";
import type { ApiKeyRepo } from "./management/api-keys/repo";
import { RedisIdempotencyLock } from "./management/idempotency/redis-lock";
import { invalidationHandler } from "./management/invalidation";
import type { Management } from "./management/module";
import { RedisAdmission } from "./metering/redis-admission";
import { RedisBudgetCounters } from "./metering/redis-budgets";
import { RedisCreditHolds } from "./metering/redis-credit-holds";
import { RedisReservations } from "./metering/redis-reservations";
import type { Database } from "./platform/db/database";
import { InvalidationBus } from "./platform/invalidation";
import type { Logger } from "./platform/logger";
import { RedisConnection, type RedisStatus } from "./platform/redis";
import type { HealthStore } from "./routing/health";
import { RedisHealthSync, type HealthSyncStats } from "./routing/redis-health-sync";

export interface SharedModeOptions {
  url: string;
  prefix: string;
  logger: Logger;
  db: Database;
  limits: LimitTable;
  keys: ApiKeyCache;
  apiKeys: ApiKeyRepo;
  management: Pick<Management, "routingDefaults" | "byok">;
  /** How long a response ID's route is remembered (config `response_route_ttl_hours`). */
  responseRouteTtlMs: number;
  /** How long a conversation stays on its prompt cache's route (config `routing.sticky_ttl_s`). */
  stickyTtlMs: number;
  /** The router's statistics: its samples are published to the other instances and theirs applied to it. */
  health: HealthStore;
}

export interface SharedMode {
  redis: RedisConnection;
  bus: InvalidationBus;
  limiter: RedisRateLimiter;
  budgets: RedisBudgetCounters;
  /** Credit holds and budget reservations of calls in flight on every instance, taken in one script. */
  reservations: RedisReservations;
  idempotencyLock: RedisIdempotencyLock;
  /** The route and credential that served each Responses ID, for follow-ups on any instance. */
  responseRoutes: RedisResponseRouteMemory;
  /** Each conversation's prompt-cache route (sticky routing), for its turns on any instance. */
  sticky: RedisStickyStore;
  /** Route health samples to and from the other instances. */
  healthSync: RedisHealthSync;
  /** For /readyz: the connection and what the bus and the route health channel have seen. */
  status(): RedisStatus & { invalidations: InvalidationBus["stats"]; routeHealth: HealthSyncStats };
  /** Connects (waiting at most ~2 s; never throws), subscribes, starts the budget definitions refresh. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createSharedMode(o: SharedModeOptions): SharedMode {
  // Nothing connects until start(): CLI commands build the same dependencies and never need Redis.
  const redis = new RedisConnection(o.url, o.prefix, o.logger);
  const bus = new InvalidationBus(redis, o.logger);
  // One admission script and one settle queue for the budget counters and the credit holds.
  const admission = new RedisAdmission(redis, o.logger);
  const budgets = new RedisBudgetCounters(redis, o.db, o.logger, { admission });
  const healthSync = new RedisHealthSync(redis, o.health, o.logger);
  const limiter = new RedisRateLimiter(redis, o.limits, o.logger);
  return {
    redis,
    bus,
    limiter,
    budgets,
    reservations: new RedisReservations(new RedisCreditHolds(redis, o.logger, admission.ttlMs, admission), budgets),
    idempotencyLock: new RedisIdempotencyLock(redis),
    responseRoutes: new RedisResponseRouteMemory(redis, o.responseRouteTtlMs),
    sticky: new RedisStickyStore(redis, { ttlMs: o.stickyTtlMs }),
    healthSync,
    status: () => ({ ...redis.status(), invalidations: { ...bus.stats }, routeHealth: { ...healthSync.stats } }),
    async start() {
      bus.start(invalidationHandler({ keys: o.keys, apiKeys: o.apiKeys, management: o.management, budgets }));
      budgets.start();
      healthSync.start();
      // Messages sent while this instance was cut off are lost: re-read what they would have said.
      redis.onChange((up) => {
        if (up) void budgets.reloadDefinitions().catch(() => undefined);
      });
      await redis.start();
    },
    async close() {
      // What the rate-limit leases still hold goes back to the shared buckets before the connection closes.
      await Promise.all([budgets.stop(), limiter.close()]);
      healthSync.stop();
      await redis.close();
    },
  };
}
