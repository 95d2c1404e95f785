// The metrics read at scrape time (gateway-metrics.ts): open streams, route circuits, the record writer's
// queue and totals. Their sources keep the figures; nothing is counted per request.
import { Counter, Gauge, type Registry } from "prom-client";
import type { Catalog } from "../../catalog/types";
import { routeKey } from "../../routing/health";
import type { MetricsOptions } from "./gateway-metrics";

/** Gauges and counters whose source keeps the figure itself: read when scraped, nothing per request. */
export function registerScrapeGauges(r: Registry, opts: MetricsOptions, openStreams: () => number, now: () => number): void {
  new Gauge({
    name: "switchyard_active_streams",
    help: "Streamed answers open now.",
    registers: [r],
    collect() {
      this.set(openStreams());
    },
  });
  const routes = routeLabels(opts.catalog);
  new Gauge({
    name: "switchyard_route_circuit_open",
    help: "1 while a route's circuit is open or half-open (no traffic but a probe), else 0; every route the router has ranked since start.",
    labelNames: ["provider", "model"],
    registers: [r],
    collect() {
      this.reset();
      const t = now();
      for (const key of opts.health.keys()) {
        const route = routes.get(key);
        if (route) this.labels(route.provider, route.model).set(opts.health.view(key, t).state === "closed" ? 0 : 1);
      }
    },
  });
  new Gauge({
    name: "switchyard_record_queue_depth",
    help: "Request records waiting to be written to the database.",
    registers: [r],
    collect() {
      this.set(opts.records.size());
    },
  });
  scrapedCounter(r, "switchyard_records_written_total", "Request records committed to the database.", () => opts.records.status().written);
  scrapedCounter(
    r,
    "switchyard_records_dead_letter_total",
    "Request records the database refused, set aside in dead_letter_records.",
    () => opts.records.status().deadLettered,
  );
}

/** Route key → its provider and canonical model, for the circuit gauge's labels. */
function routeLabels(catalog: Catalog): Map<string, { provider: string; model: string }> {
  const out = new Map<string, { provider: string; model: string }>();
  for (const m of catalog.models.values())
    for (const route of m.routes) out.set(routeKey(route), { provider: route.provider, model: m.id });
  return out;
}

/** A counter whose total another object keeps: each scrape adds what it grew by since the last one. */
function scrapedCounter(r: Registry, name: string, help: string, total: () => number): void {
  let seen = 0;
  new Counter({
    name,
    help,
    registers: [r],
    collect() {
      const t = total();
      if (t > seen) this.inc(t - seen);
      seen = t;
    },
  });
}
