// The Overview's figures as text: the totals, one row per group (with the colour its chart lines use),
// and every non-empty bucket behind the charts.
import { h } from "preact";
import type { Row } from "../lib/api";
import { dollars, empty, table, text } from "../lib/ui";
import { CHART_GROUPS, groupName, type Series, type Totals } from "./overview-data";

export const count = (v: unknown) => Number(v ?? 0).toLocaleString("en-US");
export const ms = (v: number | null) => (v === null ? "–" : `${v.toLocaleString("en-US")} ms`);

export function totals(t: Totals) {
  const pairs: [string, string][] = [
    ["Requests", count(t.requests)],
    ["Errors", count(t.errors)],
    ["Cost", dollars(t.cost_microdollars)],
    ["Tokens", count(t.total_tokens)],
    ["TTFT p50", ms(t.ttft_p50_ms)],
    ["TTFT p95", ms(t.ttft_p95_ms)],
  ];
  return h(
    "dl",
    { class: "totals overview-totals" },
    pairs.map(([k, v]) => h("div", null, [h("dt", null, k), h("dd", { "data-total": k }, v)])),
  );
}

const figureColumns = (first: [string, (r: Row) => unknown][]) =>
  [
    ...first,
    ["Requests", (r: Row) => count(r.requests)],
    ["Errors", (r: Row) => count(r.errors)],
    ["Input tokens", (r: Row) => count(r.input_tokens)],
    ["Output tokens", (r: Row) => count(r.output_tokens)],
    ["Cost", (r: Row) => dollars(r.cost_microdollars)],
    ["TTFT p50", (r: Row) => ms(r.ttft_p50_ms as number | null)],
    ["TTFT p95", (r: Row) => ms(r.ttft_p95_ms as number | null)],
  ] as [string, (r: Row) => string][];

const GROUP_TITLE = { model: "Model", provider: "Provider", api_key: "API key" } as const;

export function groupsTable(s: Series, names: Map<string, string>) {
  if (s.total.requests === 0 && s.total.total_tokens === 0) return empty("No calls in this range yet.");
  const rows = s.series.map((e, i) => ({ ...e.total, i, name: groupName(e.group, s.group_by, names) }) as Row);
  const cols = figureColumns([]);
  return table(
    [
      [
        s.group_by ? GROUP_TITLE[s.group_by] : "Calls",
        (r) => [Number(r.i) < CHART_GROUPS ? h("span", { class: `swatch sw-${Number(r.i)}`, "aria-hidden": "true" }) : null, text(r.name)],
      ],
      ...cols,
    ],
    rows,
    undefined,
    "Usage by group",
  );
}

function bucketLabel(iso: string, interval: Series["interval"]): string {
  if (interval === "hour") return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  return interval === "week" ? `week of ${iso.slice(0, 10)}` : iso.slice(0, 10);
}

/** Every bucket and group with calls or tokens: the charts' figures, readable without the charts. */
export function figuresTable(s: Series, names: Map<string, string>) {
  const rows: Row[] = [];
  s.buckets.forEach((b, i) => {
    for (const e of s.series) {
      if (e.requests[i] === 0 && e.input_tokens[i] === 0 && e.output_tokens[i] === 0) continue;
      rows.push({
        bucket: bucketLabel(b, s.interval),
        group: groupName(e.group, s.group_by, names),
        requests: e.requests[i],
        errors: e.errors[i],
        input_tokens: e.input_tokens[i],
        output_tokens: e.output_tokens[i],
        cost_microdollars: e.cost_microdollars[i],
        ttft_p50_ms: e.ttft_p50_ms[i],
        ttft_p95_ms: e.ttft_p95_ms[i],
      });
    }
  });
  const first: [string, (r: Row) => unknown][] = [["Bucket (UTC)", (r) => r.bucket]];
  if (s.group_by) first.push([GROUP_TITLE[s.group_by], (r) => r.group]);
  return h("details", { class: "figures" }, [
    h("summary", null, "The figures behind the charts"),
    rows.length === 0 ? empty("No calls in this range.") : table(figureColumns(first), rows, undefined, "Usage per bucket"),
  ]);
}
