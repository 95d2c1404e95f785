// The management API as one Elysia plugin: every row of route-table.ts, mounted by feature. Each feature
// gets only what it calls (module.ts `features`); the control plane object goes to each only as its
// mounting (mount.ts: the key check, the log, Idempotency-Key).
import { Elysia } from "elysia";
import type { Management } from "./module";
import { managementBodyParser } from "./mount";
import { ERROR_MODEL } from "./route-docs";
import { ErrorEnvelope } from "./response-schemas";
import { apiKeyRoutes } from "./api-keys/routes";
import { auditRoutes } from "./audit/routes";
import { billingRoutes } from "./billing/routes";
import { budgetRoutes } from "./budgets/routes";
import { byokRoutes } from "./byok-keys/routes";
import { inviteRoutes } from "./invites/routes";
import { memberRoutes } from "./members/routes";
import { requestRoutes } from "./requests/routes";
import { routingDefaultsRoutes } from "./routing-defaults/routes";
import { routingHealthRoutes } from "./routing-health/routes";
import type { RoutingHealthSource } from "./routing-health/render";
import { usageRoutes } from "./usage/routes";
import { workspaceRoutes } from "./workspaces/routes";

/** `health`: the router's health store, for GET /v1/routing/health (the one route reading live routing state). */
export function managementRoutes(m: Management, maxBodyBytes: number, health: RoutingHealthSource): Elysia {
  // Every route of the plugin reads its body through this one parser (mount.ts: the key check comes first).
  const app = new Elysia({ name: "management" })
    .model({ [ERROR_MODEL]: ErrorEnvelope })
    .onParse(managementBodyParser(m, maxBodyBytes)) as unknown as Elysia;
  const f = m.features;
  workspaceRoutes(app, m, f.workspaces);
  routingDefaultsRoutes(app, m, f.routingDefaults);
  usageRoutes(app, m, f.usage);
  requestRoutes(app, m, f.requests);
  budgetRoutes(app, m, f.budgets);
  apiKeyRoutes(app, m, f.apiKeys);
  byokRoutes(app, m, f.byok);
  billingRoutes(app, m, f.billing);
  memberRoutes(app, m, f.members);
  inviteRoutes(app, m, f.invites);
  auditRoutes(app, m, f.audit);
  routingHealthRoutes(app, m, { catalog: m.catalog, health, now: Date.now });
  return app;
}
