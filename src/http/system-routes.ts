// Liveness, readiness and identity.
import { Elysia } from "elysia";
import type { Deps } from "../deps";
import { authenticate } from "./auth";

export function systemRoutes(deps: Deps) {
  return new Elysia({ name: "system" })
    .get("/healthz", () => ({ status: "ok" }), { detail: { summary: "Process is up", tags: ["system"] } })
    .get(
      "/readyz",
      async ({ set }) => {
        const reasons: string[] = [];
        if (deps.state.shuttingDown) reasons.push("shutting down");
        try {
          await deps.db.ping();
          const pending = await deps.db.pendingMigrations();
          if (pending.length) reasons.push(`pending migrations: ${pending.join(", ")}`);
        } catch (err) {
          // /readyz is unauthenticated: the reason is generic, the driver's message goes to the log.
          deps.logger.error("readiness: database unreachable", { error: (err as Error).message });
          reasons.push("database unreachable");
        }
        if (reasons.length) {
          set.status = 503;
          return { status: "unavailable", reasons };
        }
        // Degraded still answers 200: the instance serves (local limits and counters, records queued
        // in memory), so a load balancer should keep sending traffic; monitoring reads the reasons.
        const degraded: string[] = [];
        const extra: Record<string, unknown> = {};
        const shared = deps.shared?.status();
        if (shared) {
          const { lastError: _redisError, ...redis } = shared;
          extra.redis = redis;
          if (!shared.up) degraded.push("redis unreachable; limits and budget counters are per instance");
          else if (!shared.subscribed)
            degraded.push("redis invalidation channel not connected; changes made elsewhere arrive by periodic refresh");
        }
        const records = deps.records.status();
        if (!records.healthy) {
          extra.records = { queued: records.queued, healthy: false, lastFlushAt: records.lastFlushAt };
          degraded.push(`request records not being written (${records.queued} queued; see the log)`);
        }
        // Not a degradation (the writer keeps going), but an operator should look at dead_letter_records.
        if (records.deadLettered > 0) extra.records = { ...(extra.records as object | undefined), deadLettered: records.deadLettered };
        if (degraded.length) return { status: "degraded", reasons: degraded, ...extra };
        return { status: "ready", ...extra };
      },
      {
        detail: {
          summary: "Database reachable and migrated; degraded while Redis (shared mode) or record writes fail",
          description:
            "`records.deadLettered`, when present, counts the request records the database refused since start: each was set aside in the `dead_letter_records` table (the status stays `ready`).",
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
