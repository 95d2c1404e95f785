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
          reasons.push(`database unreachable: ${(err as Error).message}`);
        }
        if (reasons.length) {
          set.status = 503;
          return { status: "unavailable", reasons };
        }
        return { status: "ready" };
      },
      { detail: { summary: "Database reachable and migrated", tags: ["system"] } },
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
