// Overview: requests, errors, cost, tokens and TTFT p50/p95 over time (by hour, day or ISO week, for
// every call or per model, provider or API key), the credit balance and each budget's spend.
import "./overview.css";
import { h } from "preact";
import { useState } from "preact/hooks";
import { ws } from "../lib/api";
import { field, formError } from "../lib/form";
import type { PageProps } from "../lib/types";
import { empty, page } from "../lib/ui";
import { BalanceCard, BudgetsCard } from "./overview-cards";
import { Chart } from "./overview-chart";
import { useChartData, useKeyNames, useSeries, type Series } from "./overview-data";
import { count, figuresTable, groupsTable, ms, totals } from "./overview-tables";

interface Query {
  interval: Series["interval"];
  group_by: "" | "model" | "provider" | "api_key";
  start_date: string;
  end_date: string;
}

const FIELDS = ["interval", "group_by", "start_date", "end_date"] as const;
const PER = { hour: "per hour", day: "per day", week: "per week" } as const;
const usd = (v: number) => (v === 0 ? "$0" : v < 0.01 ? `$${v.toPrecision(2)}` : `$${v.toFixed(2)}`);

function queryString(q: Query): string {
  const p = new URLSearchParams({ interval: q.interval });
  for (const k of ["group_by", "start_date", "end_date"] as const) if (q[k]) p.set(k, q[k]);
  return p.toString();
}

export function Overview({ me }: PageProps) {
  // Grouped by model at first: what the operator usually asks first, and the page's behaviour so far.
  const [q, setQ] = useState<Query>({ interval: "day", group_by: "model", start_date: "", end_date: "" });
  const s = useSeries(ws(me.workspace_id, `/usage/series?${queryString(q)}`));
  const names = useKeyNames(me);
  const charts = useChartData(s.data, names);
  const onChange = (e: Event) => {
    const el = e.target as HTMLInputElement | HTMLSelectElement;
    if ((FIELDS as readonly string[]).includes(el.name)) setQ((old) => ({ ...old, [el.name]: el.value }));
  };
  const controls = h(
    "form",
    { class: "overview-controls", "aria-label": "Range and grouping", onChange, onSubmit: (e: Event) => e.preventDefault() },
    [
      field({
        label: "Interval",
        name: "interval",
        type: "select",
        value: q.interval,
        failure: s.failure,
        options: [
          ["hour", "Hour"],
          ["day", "Day"],
          ["week", "Week"],
        ],
      }),
      field({
        label: "Group by",
        name: "group_by",
        type: "select",
        value: q.group_by,
        failure: s.failure,
        options: [
          ["", "None"],
          ["model", "Model"],
          ["provider", "Provider"],
          ["api_key", "API key"],
        ],
      }),
      field({ label: "From (UTC)", name: "start_date", type: "date", value: q.start_date, failure: s.failure }),
      field({ label: "To (UTC)", name: "end_date", type: "date", value: q.end_date, failure: s.failure }),
      formError(s.failure, [...FIELDS]),
    ],
  );
  const d = s.data;
  const hourly = d?.interval === "hour";
  const body =
    !d || !charts
      ? s.failure
        ? null
        : h("p", { "aria-busy": "true", class: "loading" }, "Loading…")
      : [
          h("p", { class: "range" }, `${d.start_date} to ${d.end_date} (UTC), ${d.buckets.length} buckets ${PER[d.interval]}.`),
          totals(d.total),
          h("div", { class: "charts" }, [
            h(Chart, { label: `Requests and errors ${PER[d.interval]}`, xs: charts.xs, lines: charts.requests, format: count, hourly }),
            h(Chart, { label: `Cost ${PER[d.interval]}`, xs: charts.xs, lines: charts.cost, format: usd, hourly }),
            h(Chart, { label: `Tokens ${PER[d.interval]}`, xs: charts.xs, lines: charts.tokens, format: count, hourly }),
            h("div", { class: "chart-cell" }, [
              h(Chart, { label: `TTFT p50 and p95 (dashed) ${PER[d.interval]}`, xs: charts.xs, lines: charts.ttft, format: ms, hourly }),
              d.total.ttft_p50_ms === null ? empty("No successful call in this range reported a time to first token.") : null,
            ]),
          ]),
          groupsTable(d, names),
          figuresTable(d, names),
        ];
  return page("Overview", [
    controls,
    h("div", { class: "overview" }, [
      h("div", { class: "overview-main", "aria-busy": d ? undefined : "true" }, body),
      h("aside", { class: "cards", "aria-label": "Credits and budgets" }, [h(BalanceCard, { me }), h(BudgetsCard, { me })]),
    ]),
  ]);
}
