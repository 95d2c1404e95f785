// Every route as the router sees it now (GET /v1/routing/health): estimates, success rate, samples and
// circuit, with a Refresh button; the circuit's state is written out, its colour only repeats it.
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Row } from "../lib/api";
import { useApi } from "../lib/hooks";
import { empty, status, table, type Column } from "../lib/ui";

const obj = (v: unknown) => (v && typeof v === "object" ? (v as Row) : {});
const num = (v: unknown) => (typeof v === "number" ? v : 0);
const time = (iso: unknown) => (typeof iso === "string" ? iso.slice(11, 19) + " UTC" : "");

/** A figure still at its prior (no sample weight yet) says so: it is the catalog's guess, not a measurement. */
const figure = (pair: unknown, unit: string, samples: unknown) => {
  const p = obj(pair);
  return `${num(p.p50)} / ${num(p.p95)} ${unit}${num(samples) === 0 ? " (prior)" : ""}`;
};

const CIRCUIT_TEXT: Record<string, string> = { closed: "closed", open: "open", half_open: "half-open (probing)" };

function circuit(r: Row) {
  const c = obj(r.circuit);
  const state = String(c.state ?? "closed");
  const until = state === "open" && c.open_until ? ` until ${time(c.open_until)}` : "";
  const fails = num(c.consecutive_failures) > 0 ? `, ${num(c.consecutive_failures)} failures in a row` : "";
  return h("span", { class: `circuit circuit-${state}`, "data-state": state }, `${CIRCUIT_TEXT[state] ?? state}${until}${fails}`);
}

function lastFailure(r: Row) {
  const f = r.last_failure ? obj(r.last_failure) : null;
  if (!f) return "none";
  const what = f.status === 0 ? "no answer" : f.status ? `HTTP ${f.status}` : "failed";
  return `${what}${f.code ? ` (${f.code})` : ""} at ${time(f.at)}`;
}

const COLUMNS: Column[] = [
  ["Model", (r) => (Array.isArray(r.models) ? r.models.join(", ") : "")],
  [
    "Provider",
    (r) =>
      h("span", null, [h("strong", null, String(r.provider ?? "")), h("br", null), h("small", null, String(r.provider_model_id ?? ""))]),
  ],
  ["TTFT p50 / p95", (r) => figure(obj(r.estimates).ttft_ms, "ms", obj(r.samples).ttft)],
  ["Throughput p50 / p95", (r) => figure(obj(r.estimates).throughput_tps, "tok/s", obj(r.samples).throughput)],
  ["Success rate", (r) => `${(num(r.success_rate) * 100).toFixed(1)} %`],
  [
    "Samples",
    (r) => `TTFT ${num(obj(r.samples).ttft)}, throughput ${num(obj(r.samples).throughput)}, outcomes ${num(obj(r.samples).outcomes)}`,
  ],
  ["Attempts", (r) => `${num(obj(r.attempts).successes)} ok, ${num(obj(r.attempts).failures)} failed`],
  ["Circuit", circuit],
  ["Last failure", lastFailure],
];

const matches = (r: Row, q: string) =>
  [...(Array.isArray(r.models) ? r.models : []), r.provider, r.provider_model_id].some((s) => String(s).toLowerCase().includes(q));
const measured = (r: Row) => num(obj(r.attempts).successes) + num(obj(r.attempts).failures) + num(obj(r.samples).outcomes) > 0;

export function RoutingHealth() {
  const loaded = useApi("/v1/routing/health");
  const [query, setQuery] = useState("");
  const [onlyMeasured, setOnlyMeasured] = useState(false);
  const [refreshing, setRefreshing] = useState(false);
  const [asOf, setAsOf] = useState<string | null>(null);
  useEffect(() => {
    setRefreshing(false);
    if (loaded.data) setAsOf(new Date().toISOString());
  }, [loaded.data, loaded.error]);
  const all = (loaded.data?.routes as Row[] | undefined) ?? [];
  const q = query.trim().toLowerCase();
  const rows = all.filter((r) => (!q || matches(r, q)) && (!onlyMeasured || measured(r)));
  const refresh = () => {
    setRefreshing(true);
    loaded.reload();
  };
  return h("section", { "aria-labelledby": "rh-title", class: "rh" }, [
    h("div", { class: "page-head" }, [
      h("h3", { id: "rh-title" }, "Route health"),
      h(
        "button",
        { type: "button", onClick: refresh, "aria-busy": refreshing ? "true" : undefined },
        refreshing ? "Refreshing…" : "Refresh",
      ),
    ]),
    h("p", { class: "hint" }, [
      "This instance's live estimates per route; \u201c(prior)\u201d marks a figure not measured yet. ",
      asOf ? `As of ${time(asOf)}.` : null,
    ]),
    h("div", { class: "rh-filters", role: "search", "aria-label": "Filter routes" }, [
      h("label", { for: "rh-query" }, "Filter by model or provider"),
      h("input", { id: "rh-query", type: "search", value: query, onInput: (e: Event) => setQuery((e.target as HTMLInputElement).value) }),
      h("label", { class: "check" }, [
        h("input", {
          type: "checkbox",
          checked: onlyMeasured,
          onChange: (e: Event) => setOnlyMeasured((e.target as HTMLInputElement).checked),
        }),
        " Only routes with attempts",
      ]),
    ]),
    status(loaded) ??
      (rows.length
        ? [h("p", { class: "hint" }, `${rows.length} of ${all.length} routes`), table(COLUMNS, rows, undefined, "Route health")]
        : empty(all.length ? "No route matches the filter." : "The catalog has no routes.")),
  ]);
}
