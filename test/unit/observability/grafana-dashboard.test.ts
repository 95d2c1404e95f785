// docs/grafana/switchyard.json: a dashboard Grafana imports (its schema's required shape, a Prometheus
// datasource variable every query uses), whose queries name only the metric families of issue 56 item 1
// and cover each of them.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const FAMILIES = [
  "switchyard_requests_total",
  "switchyard_upstream_attempts_total",
  "switchyard_tokens_total",
  "switchyard_cost_microdollars_total",
  "switchyard_request_duration_seconds",
  "switchyard_time_to_first_token_seconds",
  "switchyard_overhead_seconds",
  "switchyard_active_streams",
  "switchyard_route_circuit_open",
  "switchyard_record_queue_depth",
  "switchyard_rate_limited_total",
  "switchyard_budget_refusals_total",
  "switchyard_records_written_total",
  "switchyard_records_dead_letter_total",
];
const HISTOGRAMS = new Set([
  "switchyard_request_duration_seconds",
  "switchyard_time_to_first_token_seconds",
  "switchyard_overhead_seconds",
]);
// Labels each family has (issue 56 item 1): a `by (…)` or matcher naming another label would chart nothing.
const LABELS: Record<string, string[]> = {
  switchyard_requests_total: ["endpoint", "model", "provider", "status_class"],
  switchyard_upstream_attempts_total: ["provider", "model", "outcome"],
  switchyard_tokens_total: ["provider", "model", "type"],
  switchyard_cost_microdollars_total: ["provider", "model", "api_key_source"],
  switchyard_request_duration_seconds: ["endpoint", "provider", "le"],
  switchyard_time_to_first_token_seconds: ["provider", "model", "le"],
  switchyard_overhead_seconds: ["endpoint", "le"],
  switchyard_route_circuit_open: ["provider", "model"],
  switchyard_rate_limited_total: ["class"],
  switchyard_budget_refusals_total: ["period"],
};
// Labels Prometheus adds to every scraped series.
const TARGET_LABELS = ["instance", "job"];

interface Target {
  expr: string;
  datasource: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Target[];
}

const dashboard = JSON.parse(readFileSync(join(import.meta.dir, "../../../docs/grafana/switchyard.json"), "utf8")) as {
  schemaVersion: number;
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string }[] };
};
const panels = dashboard.panels.filter((p) => p.type !== "row");
const targets = panels.flatMap((p) => p.targets ?? []);

/** The families an expression reads (a histogram's _bucket/_sum/_count series count as their family). */
function familiesOf(expr: string): string[] {
  return [...expr.matchAll(/\bswitchyard_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ""));
}

describe("the Grafana dashboard", () => {
  test("has the schema's shape: a version Grafana 10–11 writes, a uid, panels with ids and grid positions", () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.schemaVersion).toBeLessThanOrEqual(41);
    expect(dashboard.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(dashboard.title).toBe("Switchyard");
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) {
      expect(["row", "stat", "timeseries"]).toContain(p.type);
      expect(p.gridPos.w).toBeGreaterThan(0);
      expect(p.gridPos.x + p.gridPos.w).toBeLessThanOrEqual(24);
    }
    expect(panels.length).toBeGreaterThan(10);
  });

  test("every query goes to the Prometheus datasource variable", () => {
    const variable = dashboard.templating.list.find((v) => v.name === "datasource");
    expect(variable).toMatchObject({ type: "datasource", query: "prometheus" });
    for (const p of panels) {
      expect(p.datasource).toEqual({ type: "prometheus", uid: "${datasource}" });
      expect(p.targets!.length).toBeGreaterThan(0);
      for (const t of p.targets!) expect(t.datasource).toEqual({ type: "prometheus", uid: "${datasource}" });
    }
  });

  test("every expression names only the families of issue 56, and every family is charted", () => {
    const charted = new Set<string>();
    for (const t of targets) {
      const names = familiesOf(t.expr);
      expect(names.length, t.expr).toBeGreaterThan(0);
      for (const name of names) {
        expect(FAMILIES, t.expr).toContain(name);
        charted.add(name);
      }
    }
    expect([...charted].sort()).toEqual([...FAMILIES].sort());
  });

  test("histograms are read through their buckets with histogram_quantile, p50 and p95 each", () => {
    for (const h of HISTOGRAMS) {
      const exprs = targets.map((t) => t.expr).filter((e) => e.includes(h));
      for (const e of exprs)
        expect(e).toMatch(new RegExp(`histogram_quantile\\(0\\.(5|95), sum by \\(le[^)]*\\) \\(rate\\(${h}_bucket\\[`));
      expect(exprs.some((e) => e.startsWith("histogram_quantile(0.5,"))).toBe(true);
      expect(exprs.some((e) => e.startsWith("histogram_quantile(0.95,"))).toBe(true);
    }
  });

  test("grouping and matchers use only labels the family has", () => {
    for (const { expr } of targets) {
      const [family] = familiesOf(expr);
      const allowed = [...(LABELS[family!] ?? []), ...TARGET_LABELS];
      for (const m of expr.matchAll(/by \(([^)]*)\)/g)) for (const label of m[1]!.split(",")) expect(allowed, expr).toContain(label.trim());
      for (const m of expr.matchAll(/\{([^}]*)\}/g)) {
        for (const matcher of m[1]!.split(",")) expect(allowed, expr).toContain(matcher.split(/[=!~]/)[0]!.trim());
      }
    }
  });
});
