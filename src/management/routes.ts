// The management API as one Elysia plugin: every row of route-table.ts, mounted by feature. Starting
// the plugin starts the in-memory stores' refresh (the app is built after migrations have run).
import { Elysia } from "elysia";
import type { Management } from "./module";
import { managementBodyParser } from "./mount";
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

const FEATURES = [
  workspaceRoutes,
  routingDefaultsRoutes,
  usageRoutes,
  requestRoutes,
  budgetRoutes,
  apiKeyRoutes,
  byokRoutes,
  billingRoutes,
  memberRoutes,
  inviteRoutes,
  auditRoutes,
];

/** `health`: the router's health store, for GET /v1/routing/health (the one route reading live routing state). */
export function managementRoutes(m: Management, maxBodyBytes: number, health: RoutingHealthSource): Elysia {
  // Every route of the plugin reads its body through this one parser (mount.ts: the key check comes first).
  const app = new Elysia({ name: "management" }).onParse(managementBodyParser(m, maxBodyBytes));
  for (const feature of FEATURES) feature(app as unknown as Elysia, m);
  routingHealthRoutes(app as unknown as Elysia, m, health);
  return app as unknown as Elysia;
}
