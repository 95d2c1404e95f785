// The Overview's data: the usage series (keeping the API's failure, so a control can show the error its
// `param` names), API key names for grouping by key, and the chart lines built from a series.
import { useEffect, useMemo, useState } from "preact/hooks";
import { ApiFailure, api, ws, type Row } from "../lib/api";
import type { Me } from "../lib/types";
import type { Line } from "./overview-chart";

export interface SeriesEntry {
  group: string | null;
  requests: number[];
  errors: number[];
  input_tokens: number[];
  output_tokens: number[];
  cost_microdollars: number[];
  ttft_p50_ms: (number | null)[];
  ttft_p95_ms: (number | null)[];
  total: Totals;
}
export interface Totals {
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cost_microdollars: number;
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
}
export interface Series {
  interval: "hour" | "day" | "week";
  group_by: "model" | "provider" | "api_key" | null;
  start_date: string;
  end_date: string;
  buckets: string[];
  series: SeriesEntry[];
  total: Totals;
}

export function useSeries(path: string): { data: Series | null; failure: ApiFailure | null } {
  const [state, set] = useState<{ data: Series | null; failure: ApiFailure | null }>({ data: null, failure: null });
  useEffect(() => {
    let live = true;
    set({ data: null, failure: null });
    api(path).then(
      (data) => live && set({ data: busiestFirst(data as unknown as Series), failure: null }),
      (e: unknown) =>
        live &&
        set({ data: null, failure: e instanceof ApiFailure ? e : new ApiFailure(String((e as Error)?.message ?? e), 0, null, null) }),
    );
    return () => {
      live = false;
    };
  }, [path]);
  return state;
}

/** Groups by calls, most first (then by name): the charts' colours follow this order, and so does the table. */
function busiestFirst(s: Series): Series {
  return { ...s, series: [...s.series].sort((a, b) => b.total.requests - a.total.requests) };
}

/** API key ID → name, when the key may list keys (keys:read); otherwise empty and IDs are shown. */
export function useKeyNames(me: Me): Map<string, string> {
  const [names, set] = useState(new Map<string, string>());
  const allowed = me.scopes.includes("keys:read");
  useEffect(() => {
    if (!allowed) return;
    let live = true;
    api(ws(me.workspace_id, "/api-keys?include_revoked=true&include_playground=true")).then(
      (r) => live && set(new Map((r.api_keys as Row[]).map((k) => [String(k.api_key_id), String(k.name)]))),
      () => {}, // the names are a nicety: the IDs are shown instead
    );
    return () => {
      live = false;
    };
  }, [me.workspace_id, allowed]);
  return names;
}

export function groupName(group: string | null, by: Series["group_by"], names: Map<string, string>): string {
  if (group === null) return "All calls";
  if (group === "") return by === "api_key" ? "(no key)" : "(none)";
  return by === "api_key" ? (names.get(group) ?? group) : group;
}

/** The charts draw at most this many groups (the busiest); the groups table lists every one. */
export const CHART_GROUPS = 8;

export interface ChartData {
  xs: number[];
  requests: Line[];
  cost: Line[];
  tokens: Line[];
  ttft: Line[];
}

export function useChartData(s: Series | null, names: Map<string, string>): ChartData | null {
  return useMemo(() => {
    if (!s) return null;
    const xs = s.buckets.map((b) => Date.parse(b) / 1000);
    const shown = s.series.slice(0, CHART_GROUPS);
    const name = (e: SeriesEntry) => groupName(e.group, s.group_by, names);
    const each = (f: (e: SeriesEntry) => (number | null)[], suffix = "", dashed = false): Line[] =>
      shown.map((e, i) => ({ label: `${name(e)}${suffix}`, values: f(e), color: i, dashed }));
    const errors = s.buckets.map((_, i) => s.series.reduce((sum, e) => sum + e.errors[i]!, 0));
    return {
      xs,
      requests: [...each((e) => e.requests), { label: "Errors (all groups)", values: errors, color: -1, dashed: true }],
      cost: each((e) => e.cost_microdollars.map((c) => c / 1e6)),
      tokens: each((e) => e.input_tokens.map((v, i) => v + e.output_tokens[i]!)),
      ttft: [...each((e) => e.ttft_p50_ms, " p50"), ...each((e) => e.ttft_p95_ms, " p95", true)],
    };
  }, [s, names]);
}
