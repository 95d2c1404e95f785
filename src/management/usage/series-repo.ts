// Usage series straight from request_records (not the daily rollups, whose grain is a day), counted as
// the record writer counts the rollups: requests and errors per call (final attempts), tokens and cost
// over every attempt. Two grouped queries over the (workspace_id, created_at) index: the counters per
// bucket and group, and a TTFT histogram per bucket, group and bin. Both are plain integer SQL (integer
// division truncates alike on SQLite and Postgres; constants are inlined so both dialects group by the
// very same expression).
import { and, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { Database } from "../../platform/db/database";
import type { Grid } from "./series-range";

export const SERIES_GROUP_BY = ["model", "provider", "api_key"] as const;
export type SeriesGroupBy = (typeof SERIES_GROUP_BY)[number];

export interface CounterRow {
  bucket: number;
  group: string | null;
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cost_microdollars: number;
}

/** `n` TTFTs of one bucket and group fell in histogram bin `bin`, the smallest `lo` and the largest `hi`. */
export interface TtftBinRow {
  bucket: number;
  group: string | null;
  bin: number;
  n: number;
  lo: number;
  hi: number;
}

/** TTFT bins: 10 ms wide below 1 s, 100 ms below 10 s, 1 s below 60 s, then one open bin. */
export const TTFT_BINS_DESCRIPTION = "10 ms wide below 1 s, 100 ms below 10 s, 1 s below 60 s, one bin above";
const ttftBin = (c: SQL) =>
  sql`CASE WHEN ${c} < 1000 THEN ${c} / 10 WHEN ${c} < 10000 THEN 90 + ${c} / 100 WHEN ${c} < 60000 THEN 180 + ${c} / 1000 ELSE 240 END`;

const int = (v: number) => sql.raw(String(Math.trunc(v)));
// SUM and bigint arithmetic come back as numeric text on Postgres: every figure goes through Number().
const n = (v: unknown) => Number(v ?? 0);

export function seriesRepo(db: Database) {
  const t = db.t.requestRecords;
  // The same group keys as the rollups (record-batch.ts): a missing value is the empty string.
  const groupColumn: Record<SeriesGroupBy, SQL> = {
    model: sql`coalesce(${t.modelCanonical}, ${t.model}, '')`,
    provider: sql`coalesce(${t.provider}, '')`,
    api_key: sql`coalesce(${t.apiKeyId}, '')`,
  };
  return {
    async read(workspaceId: string, g: Grid, groupBy: SeriesGroupBy | null): Promise<{ counters: CounterRow[]; ttft: TtftBinRow[] }> {
      const bucket = sql`(${t.createdAt} - ${int(g.origin)}) / ${int(g.size)}`;
      const group = groupBy ? groupColumn[groupBy] : sql`NULL`;
      const keys = groupBy ? [bucket, group] : [bucket];
      const inRange = [eq(t.workspaceId, workspaceId), gte(t.createdAt, g.startMs), lt(t.createdAt, g.endMs)];
      const counters = await db.orm
        .select({
          bucket: sql<unknown>`${bucket}`,
          group: sql<unknown>`${group}`,
          requests: sql<unknown>`sum(CASE WHEN ${t.isFinalAttempt} THEN 1 ELSE 0 END)`,
          errors: sql<unknown>`sum(CASE WHEN ${t.isFinalAttempt} AND NOT ${t.success} THEN 1 ELSE 0 END)`,
          input: sql<unknown>`sum(${t.inputTokens})`,
          output: sql<unknown>`sum(${t.outputTokens})`,
          cost: sql<unknown>`sum(${t.costMicrodollars})`,
        })
        .from(t)
        .where(and(...inRange))
        .groupBy(...keys);
      const bin = ttftBin(sql`${t.ttftMs}`);
      const ttft = await db.orm
        .select({
          bucket: sql<unknown>`${bucket}`,
          group: sql<unknown>`${group}`,
          bin: sql<unknown>`${bin}`,
          n: sql<unknown>`count(*)`,
          lo: sql<unknown>`min(${t.ttftMs})`,
          hi: sql<unknown>`max(${t.ttftMs})`,
        })
        .from(t)
        .where(and(...inRange, sql`${t.isFinalAttempt} AND ${t.success} AND ${t.ttftMs} IS NOT NULL`))
        .groupBy(...keys, bin);
      const label = (v: unknown) => (groupBy ? String(v ?? "") : null);
      return {
        counters: counters.map((r) => ({
          bucket: n(r.bucket),
          group: label(r.group),
          requests: n(r.requests),
          errors: n(r.errors),
          input_tokens: n(r.input),
          output_tokens: n(r.output),
          cost_microdollars: n(r.cost),
        })),
        ttft: ttft.map((r) => ({ bucket: n(r.bucket), group: label(r.group), bin: n(r.bin), n: n(r.n), lo: n(r.lo), hi: n(r.hi) })),
      };
    },
  };
}
export type SeriesRepo = ReturnType<typeof seriesRepo>;
