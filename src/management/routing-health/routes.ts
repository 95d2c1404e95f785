// GET /v1/routing/health: the router's view of every catalog route (render.ts). Not workspace-scoped —
// routes are the instance's, not a tenant's — so, like GET /v1/workspaces, it needs only the key's scope.
import type { Elysia } from "elysia";
import type { Catalog } from "../../catalog/types";
import { mount, type Mounting } from "../mount";
import { renderRoutingHealth, RoutingHealthList, type RoutingHealthSource } from "./render";

const DESCRIPTION =
  "Every route of the catalog once (a route serving several models lists them in `models`), as this instance measures it: " +
  "estimates (p50/p95 TTFT and throughput, the priors until measured), effective time-decayed sample weights (0: prior only), " +
  "the priors, recent success rate, raw attempt totals, circuit state and the last failure. Statistics are this instance's " +
  "(in shared mode, with what its peers published).";

/** What the route reads: the catalog's routes, the router's health store and the clock. */
export interface RoutingHealthFeature {
  catalog: () => Catalog;
  health: RoutingHealthSource;
  now: () => number;
}

export function routingHealthRoutes(app: Elysia, m: Mounting, d: RoutingHealthFeature): Elysia {
  mount(app, m, "routingHealth.get", async () => ({ status: 200, body: renderRoutingHealth(d.catalog(), d.health, d.now()) }), {
    description: DESCRIPTION,
    response: RoutingHealthList,
  });
  return app;
}
