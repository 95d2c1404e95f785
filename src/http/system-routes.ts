// Liveness, readiness and identity.
import { Elysia } from "elysia";
import type { Deps } from "../deps";
import { authenticate } from "./auth";

/** Queued request records past which the writer is named behind (its refusal point is 100,000: isFull). */
export const RECORD_BACKLOG = 10_000;
/** Queued stored Responses past which their writer is named behind. */
export const RESPONSES_BACKLOG = 10_000;
/** How long a newly dead-lettered record keeps /readyz degraded after a probe first saw it. */
export const DEAD_LETTER_WINDOW_MS = 15 * 60_000;

/** What /readyz can name: the first three make it 503 (not ready), the others degraded (still 200). */
export type ReadinessPart =
  | "draining"
  | "database"
  | "migrations"
  | "redis"
  | "redis_invalidation"
  | "records"
  | "records_backlog"
  | "dead_letter"
  | "responses_store";

type Readiness =
  | { status: "unavailable"; failing: ReadinessPart[]; reasons: string[] }
  | { status: "degraded"; degraded: ReadinessPart[]; reasons: string[]; [detail: string]: unknown }
  | { status: "ready"; [detail: string]: unknown };

/**
 * Not ready (503) only while draining or when the database is unreachable or unmigrated: the instance
 * cannot serve then. Everything else answers 200, listed as degraded: the instance serves (local limits
 * and counters, records queued in memory), so a load balancer should keep sending traffic while
 * monitoring reads the parts named. Reasons are generic (the endpoint is unauthenticated); the
 * drivers' messages go to the log.
 */
function readiness(deps: Deps) {
  // A dead-lettered record degrades readiness for a window after a probe first saw the count grow,
  // not until restart: one refused record should not leave the instance degraded for good.
  let deadSeen = 0;
  let deadAt = -Infinity;
  return async (): Promise<Readiness> => {
    const failing: ReadinessPart[] = [];
    const reasons: string[] = [];
    if (deps.state.shuttingDown) {
      failing.push("draining");
      reasons.push("shutting down");
    }
    try {
      await deps.db.ping();
      const pending = await deps.db.pendingMigrations();
      if (pending.length) {
        failing.push("migrations");
        reasons.push(`pending migrations: ${pending.join(", ")}`);
      }
    } catch (err) {
      deps.logger.error("readiness: database unreachable", { error: (err as Error).message });
      failing.push("database");
      reasons.push("database unreachable");
    }
    if (failing.length) return { status: "unavailable", failing, reasons };

    const degraded: ReadinessPart[] = [];
    const extra: Record<string, unknown> = {};
    const degrade = (part: ReadinessPart, reason: string) => {
      degraded.push(part);
      reasons.push(reason);
    };
    const shared = deps.shared?.status();
    if (shared) {
      const { lastError: _redisError, ...redis } = shared;
      extra.redis = redis;
      if (!shared.up) degrade("redis", "redis unreachable; limits and budget counters are per instance");
      else if (!shared.subscribed)
        degrade("redis_invalidation", "redis invalidation channel not connected; changes made elsewhere arrive by periodic refresh");
    }
    const records = deps.records.status();
    const full = deps.records.isFull();
    if (!records.healthy || full || records.queued >= RECORD_BACKLOG)
      extra.records = { queued: records.queued, healthy: records.healthy, lastFlushAt: records.lastFlushAt };
    if (!records.healthy) degrade("records", `request records not being written (${records.queued} queued; see the log)`);
    if (full) degrade("records_backlog", `request record queue full (${records.queued} queued); new calls are refused`);
    else if (records.queued >= RECORD_BACKLOG) degrade("records_backlog", `request records behind (${records.queued} queued)`);
    if (records.deadLettered > 0) {
      extra.records = { ...(extra.records as object | undefined), deadLettered: records.deadLettered };
      const now = Date.now();
      if (records.deadLettered > deadSeen) {
        deadSeen = records.deadLettered;
        deadAt = now;
      }
      if (now - deadAt < DEAD_LETTER_WINDOW_MS) degrade("dead_letter", "request records refused by the database; see dead_letter_records");
    }
    const storeQueued = deps.responseStore?.queued() ?? 0;
    if (storeQueued >= RESPONSES_BACKLOG) {
      extra.responses_store = { queued: storeQueued };
      degrade("responses_store", `stored responses behind (${storeQueued} queued)`);
    }
    if (degraded.length) return { status: "degraded", degraded, reasons, ...extra };
    return { status: "ready", ...extra };
  };
}

export function systemRoutes(deps: Deps) {
  const ready = readiness(deps);
  return new Elysia({ name: "system" })
    .get("/healthz", () => ({ status: "ok" }), { detail: { summary: "Process is up", tags: ["system"] } })
    .get(
      "/readyz",
      async ({ set }) => {
        const r = await ready();
        if (r.status === "unavailable") set.status = 503;
        return r;
      },
      {
        detail: {
          summary: "503 while draining or the database is unreachable or unmigrated; 200 otherwise, naming what is degraded",
          description:
            "`status` is `ready`, `degraded` or `unavailable` (503). `failing` (503) names `draining`, `database` or `migrations`; " +
            "`degraded` (200) names `redis`, `redis_invalidation`, `records` (record writes failing), `records_backlog`, " +
            "`dead_letter` (a record set aside in `dead_letter_records` in the last 15 minutes) and `responses_store`, " +
            "each with a generic reason in `reasons`. `records.deadLettered`, when present, counts the records set aside since start.",
          tags: ["system"],
        },
      },
    )
    .get(
      "/v1/me",
      async ({ request }) => {
        const { key } = await authenticate(deps.keys, request.headers);
        return {
          api_key_id: key.id,
          workspace_id: key.workspaceId,
          name: key.name,
          key_prefix: key.keyPrefix,
          scopes: key.scopes,
          created_at: new Date(key.createdAt).toISOString(),
          expires_at: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
        };
      },
      { detail: { summary: "The calling API key's identity", tags: ["identity"], security: [{ bearer: [] }] } },
    );
}
