// GET /v1/routing/health: the router's view of every catalog route (render.ts). Not workspace-scoped —
// routes are the instance's, not a tenant's — so, like GET /v1/workspaces, it needs only the key's scope.
import type { Elysia } from "elysia";
import { mount } from "../mount";
import type { Management } from "../module";
import { renderRoutingHealth, RoutingHealthList, type RoutingHealthSource } from "./render";

const DESCRIPTION =
  "Every route of the catalog once (a route serving several models lists them in `models`), as this instance measures it: " +
  "estimates (p50/p95 TTFT and throughput, the priors until measured), effective time-decayed sample weights (0: prior only), " +
  "the priors, recent success rate, raw attempt totals, circuit state and the last failure. Statistics are this instance's " +
  "(in shared mode, with what its peers published).";

export function routingHealthRoutes(app: Elysia, m: Management, health: RoutingHealthSource, now: () => number = Date.now): Elysia {
  mount(app, m, "routingHealth.get", async () => ({ status: 200, body: renderRoutingHealth(m.catalog(), health, now()) }), {
    description: DESCRIPTION,
    response: RoutingHealthList,
  });
  return app;
}
