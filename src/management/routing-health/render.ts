// GET /v1/routing/health's body: every route of the catalog as the router sees it now (estimates,
// effective sample weights, priors, success rate, circuit, last failure), so an operator can tell why a
// route is or is not chosen. Pure: the health store and the clock are passed in.
import { Type, type Static } from "@sinclair/typebox";
import type { Catalog, RouteEntry } from "../../catalog/types";
import { routeKey } from "../../routing/health";
import type { RouteEstimate } from "../../routing/types";

/** What this view reads of the health store (HealthStore satisfies it). */
export interface RoutingHealthSource {
  estimate(key: string, prior: { ttftMs: number; tps: number }, now: number): RouteEstimate;
  view(
    key: string,
    now: number,
  ): {
    state: "closed" | "open" | "half_open";
    openUntil: number | null;
    successes: number;
    failures: number;
    consecutiveFailures: number;
    lastFailureAt: number | null;
    lastFailureStatus: number | null;
    lastFailureCode: string | null;
  };
}

const Pair = (unit: string) =>
  Type.Object({ p50: Type.Number({ description: `median, ${unit}` }), p95: Type.Number({ description: `95th percentile, ${unit}` }) });
const IsoOrNull = Type.Union([Type.String({ format: "date-time" }), Type.Null()]);

export const RouteHealthItem = Type.Object({
  provider: Type.String(),
  provider_model_id: Type.String(),
  models: Type.Array(Type.String(), { description: "canonical IDs of the models this route serves" }),
  estimates: Type.Object({
    ttft_ms: Pair("ms (p95: the slowest 5 %)"),
    throughput_tps: Pair("output tokens/s (p95: the rate 95 % of answers reach)"),
  }),
  samples: Type.Object(
    { ttft: Type.Number(), throughput: Type.Number(), outcomes: Type.Number() },
    { description: "effective time-decayed sample weights behind each figure (2 decimals); 0 means the prior alone" },
  ),
  prior: Type.Object({
    ttft_ms: Type.Number(),
    throughput_tps: Type.Number(),
    latency_hint: Type.String({ description: "the catalog's fast, normal or slow" }),
  }),
  success_rate: Type.Number({ minimum: 0, maximum: 1, description: "recent share of attempts without a provider failure (3 decimals)" }),
  attempts: Type.Object(
    { successes: Type.Integer(), failures: Type.Integer() },
    { description: "raw totals since this instance started (in shared mode, its peers' attempts too)" },
  ),
  circuit: Type.Object({
    state: Type.Union([Type.Literal("closed"), Type.Literal("open"), Type.Literal("half_open")]),
    open_until: IsoOrNull,
    consecutive_failures: Type.Integer(),
  }),
  last_failure: Type.Union([
    Type.Object({
      at: Type.String({ format: "date-time" }),
      status: Type.Union([Type.Integer(), Type.Null()], {
        description: "the upstream HTTP status; 0: no answer (timeout, connection failure)",
      }),
      code: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
});
export type RouteHealthItem = Static<typeof RouteHealthItem>;

export const RoutingHealthList = Type.Object({ routes: Type.Array(RouteHealthItem), count: Type.Integer() });
export type RoutingHealthList = Static<typeof RoutingHealthList>;

const round = (x: number, digits: number) => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Each route key once, in key order, with the models it serves (a route shared by models is one route). */
function routesByKey(catalog: Catalog): Map<string, { route: RouteEntry; models: string[] }> {
  const byKey = new Map<string, { route: RouteEntry; models: string[] }>();
  for (const model of catalog.models.values()) {
    for (const route of model.routes) {
      const key = routeKey(route);
      const seen = byKey.get(key);
      if (seen) {
        if (!seen.models.includes(model.id)) seen.models.push(model.id);
      } else byKey.set(key, { route, models: [model.id] });
    }
  }
  return new Map([...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function renderRoute(key: string, route: RouteEntry, models: string[], health: RoutingHealthSource, now: number): RouteHealthItem {
  const e = health.estimate(key, { ttftMs: route.ttftHintMs, tps: route.tpsHint }, now);
  const v = health.view(key, now);
  return {
    provider: route.provider,
    provider_model_id: route.providerModelId,
    models: [...models].sort(),
    estimates: {
      ttft_ms: { p50: Math.round(e.ttftP50Ms), p95: Math.round(e.ttftP95Ms) },
      throughput_tps: { p50: round(e.tpsP50, 1), p95: round(e.tpsP95, 1) },
    },
    samples: { ttft: round(e.ttftSamples, 2), throughput: round(e.tpsSamples, 2), outcomes: round(e.outcomeSamples, 2) },
    prior: { ttft_ms: route.ttftHintMs, throughput_tps: route.tpsHint, latency_hint: route.latencyHint },
    success_rate: round(e.successRate, 3),
    attempts: { successes: v.successes, failures: v.failures },
    circuit: { state: v.state, open_until: v.state === "closed" ? null : iso(v.openUntil), consecutive_failures: v.consecutiveFailures },
    last_failure: v.lastFailureAt === null ? null : { at: iso(v.lastFailureAt)!, status: v.lastFailureStatus, code: v.lastFailureCode },
  };
}

export function renderRoutingHealth(catalog: Catalog, health: RoutingHealthSource, now: number): RoutingHealthList {
  const routes: RouteHealthItem[] = [];
  for (const [key, { route, models }] of routesByKey(catalog)) routes.push(renderRoute(key, route, models, health, now));
  return { routes, count: routes.length };
}
