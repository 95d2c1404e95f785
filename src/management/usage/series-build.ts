// Turns the series queries' grouped rows into arrays aligned with the buckets (empty buckets included)
// and estimates TTFT percentiles from the histogram bins.
import { Type, type Static } from "@sinclair/typebox";
import type { CounterRow, SeriesGroupBy, TtftBinRow } from "./series-repo";

const Counts = Type.Array(Type.Integer());
const Ms = Type.Array(Type.Union([Type.Number(), Type.Null()]));
const Totals = Type.Object({
  requests: Type.Integer(),
  errors: Type.Integer(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cost_microdollars: Type.Integer(),
  ttft_p50_ms: Type.Union([Type.Number(), Type.Null()]),
  ttft_p95_ms: Type.Union([Type.Number(), Type.Null()]),
});
const Group = Type.Union([Type.String(), Type.Null()]);
export const UsageSeries = Type.Object({
  interval: Type.String(),
  group_by: Group,
  start_date: Type.String(),
  end_date: Type.String(),
  buckets: Type.Array(Type.String({ description: "a bucket's start, ISO 8601 UTC" })),
  series: Type.Array(
    Type.Object({
      group: Group,
      requests: Counts,
      errors: Counts,
      input_tokens: Counts,
      output_tokens: Counts,
      cost_microdollars: Counts,
      ttft_p50_ms: Ms,
      ttft_p95_ms: Ms,
      total: Totals,
    }),
  ),
  total: Totals,
});
export type UsageSeries = Static<typeof UsageSeries>;
type Series = UsageSeries["series"][number];
type Bin = Pick<TtftBinRow, "bin" | "n" | "lo" | "hi">;

/**
 * The p-quantile (0..1) of the values the bins hold, interpolated linearly between order statistics as
 * numpy's default does; inside a bin its n values are taken as evenly spread from its smallest to its
 * largest, so the estimate is exact when a bin holds at most two distinct values. Null without values.
 */
export function percentile(bins: readonly Bin[], p: number): number | null {
  const sorted = [...bins].sort((a, b) => a.bin - b.bin);
  const total = sorted.reduce((s, b) => s + b.n, 0);
  if (total === 0) return null;
  const at = (i: number): number => {
    let k = 0;
    for (const b of sorted) {
      if (i < k + b.n) return b.n === 1 ? b.lo : b.lo + ((i - k) / (b.n - 1)) * (b.hi - b.lo);
      k += b.n;
    }
    return sorted[sorted.length - 1]!.hi;
  };
  const r = p * (total - 1);
  const lo = at(Math.floor(r));
  const v = lo + (r - Math.floor(r)) * (at(Math.ceil(r)) - lo);
  return Math.round(v * 10) / 10;
}

/** Adds one bin list into another (same bin: counts add, bounds widen). */
function mergeInto(into: Map<number, Bin>, b: Bin): void {
  const o = into.get(b.bin);
  if (!o) into.set(b.bin, { bin: b.bin, n: b.n, lo: b.lo, hi: b.hi });
  else into.set(b.bin, { bin: b.bin, n: o.n + b.n, lo: Math.min(o.lo, b.lo), hi: Math.max(o.hi, b.hi) });
}

const COUNTERS = ["requests", "errors", "input_tokens", "output_tokens", "cost_microdollars"] as const;

interface Acc {
  series: Series;
  /** Per bucket, and over the whole range. */
  bins: Map<number, Bin>[];
  all: Map<number, Bin>;
}

function totalsOf(s: Pick<Series, (typeof COUNTERS)[number]>, bins: Map<number, Bin>): Series["total"] {
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  const input = sum(s.input_tokens);
  const output = sum(s.output_tokens);
  const b = [...bins.values()];
  return {
    requests: sum(s.requests),
    errors: sum(s.errors),
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    cost_microdollars: sum(s.cost_microdollars),
    ttft_p50_ms: percentile(b, 0.5),
    ttft_p95_ms: percentile(b, 0.95),
  };
}

export function buildSeries(
  count: number,
  groupBy: SeriesGroupBy | null,
  rows: { counters: readonly CounterRow[]; ttft: readonly TtftBinRow[] },
): { series: Series[]; total: Series["total"] } {
  const groups = new Map<string | null, Acc>();
  const accOf = (group: string | null): Acc => {
    let a = groups.get(group);
    if (!a) {
      const zeros = () => Array.from({ length: count }, () => 0);
      const series = {
        group,
        ...Object.fromEntries(COUNTERS.map((k) => [k, zeros()])),
        ttft_p50_ms: [],
        ttft_p95_ms: [],
      } as unknown as Series;
      a = { series, bins: Array.from({ length: count }, () => new Map()), all: new Map() };
      groups.set(group, a);
    }
    return a;
  };
  if (groupBy === null) accOf(null);
  for (const r of rows.counters) {
    const s = accOf(r.group).series;
    for (const k of COUNTERS) s[k][r.bucket] = r[k];
  }
  const everything = new Map<number, Bin>();
  for (const r of rows.ttft) {
    const a = accOf(r.group);
    mergeInto(a.bins[r.bucket]!, r);
    mergeInto(a.all, r);
    mergeInto(everything, r);
  }
  const list = [...groups.values()].sort((x, y) => ((x.series.group ?? "") < (y.series.group ?? "") ? -1 : 1));
  for (const a of list) {
    a.series.ttft_p50_ms = a.bins.map((b) => percentile([...b.values()], 0.5));
    a.series.ttft_p95_ms = a.bins.map((b) => percentile([...b.values()], 0.95));
    a.series.total = totalsOf(a.series, a.all);
  }
  const total = totalsOf(
    Object.fromEntries(COUNTERS.map((k) => [k, list.map((a) => a.series.total[k])])) as Pick<Series, (typeof COUNTERS)[number]>,
    everything,
  );
  return { series: list.map((a) => a.series), total };
}
