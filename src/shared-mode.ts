// Shared mode (REDIS_URL, CONTRACT §1 and §5): several instances on one Postgres and one Redis. Postgres
// stays the system of record; Redis carries what must be common to all instances at request speed:
// rate-limit buckets, budget spend and reservations, Idempotency-Key locks, invalidation messages, and
// which route served each Responses ID (so a `previous_response_id` follow-up finds it on any instance).
// Everything here degrades to per-instance behaviour while Redis is down and rejoins when it returns.
//
// Deliberately per instance, even in shared mode: router statistics (TTFT, throughput, error rates)
// and circuit-breaker state (routing/health.ts). Each instance learns them from its own traffic; they
// steer choices between healthy candidates and converge quickly, so sharing them would add a Redis
// round trip per attempt for little gain. Credit balances are also per instance (refreshed from
// Postgres by CreditService); the holds of calls in flight against them are shared.
import type { ApiKeyCache } from "./auth/key-cache";
import type { LimitTable } from "./limits/classes";
import { RedisResponseRouteMemory } from "./inference/responses/redis-route-memory";
import { RedisRateLimiter } from "./limits/redis-store";
import type { ApiKeyRepo } from "./management/api-keys/repo";
import { RedisIdempotencyLock } from "./management/idempotency/redis-lock";
import { invalidationHandler } from "./management/invalidation";
import type { Management } from "./management/module";
import { RedisBudgetCounters } from "./metering/redis-budgets";
import { RedisCreditHolds } from "./metering/redis-credit-holds";
import type { Database } from "./platform/db/database";
import { InvalidationBus } from "./platform/invalidation";
import type { Logger } from "./platform/logger";
import { RedisConnection, type RedisStatus } from "./platform/redis";

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
}

export interface SharedMode {
  redis: RedisConnection;
  bus: InvalidationBus;
  limiter: RedisRateLimiter;
  budgets: RedisBudgetCounters;
  /** Credit holds of calls in flight on every instance. */
  creditHolds: RedisCreditHolds;
  idempotencyLock: RedisIdempotencyLock;
  /** The route and credential that served each Responses ID, for follow-ups on any instance. */
  responseRoutes: RedisResponseRouteMemory;
  /** For /readyz: the connection and what the bus has seen. */
  status(): RedisStatus & { invalidations: InvalidationBus["stats"] };
  /** Connects (waiting at most ~2 s; never throws), subscribes, starts the budget definitions refresh. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createSharedMode(o: SharedModeOptions): SharedMode {
  // Nothing connects until start(): CLI commands build the same dependencies and never need Redis.
  const redis = new RedisConnection(o.url, o.prefix, o.logger);
  const bus = new InvalidationBus(redis, o.logger);
  const budgets = new RedisBudgetCounters(redis, o.db, o.logger);
  return {
    redis,
    bus,
    limiter: new RedisRateLimiter(redis, o.limits, o.logger),
    budgets,
    creditHolds: new RedisCreditHolds(redis, o.logger),
    idempotencyLock: new RedisIdempotencyLock(redis),
    responseRoutes: new RedisResponseRouteMemory(redis, o.responseRouteTtlMs),
    status: () => ({ ...redis.status(), invalidations: { ...bus.stats } }),
    async start() {
      bus.start(invalidationHandler({ keys: o.keys, apiKeys: o.apiKeys, management: o.management, budgets }));
      budgets.start();
      // Messages sent while this instance was cut off are lost: re-read what they would have said.
      redis.onChange((up) => {
        if (up) void budgets.reloadDefinitions().catch(() => undefined);
      });
      await redis.start();
    },
    async close() {
      budgets.stop();
      await redis.close();
    },
  };
}
