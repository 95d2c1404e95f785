// Usage aggregates from the daily rollups (written by the metering record writer).
import { and, asc, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import type { Database } from "../../platform/db/database";

export const GROUP_BY = ["model", "provider", "api_key", "day"] as const;
export type GroupBy = (typeof GROUP_BY)[number];

export interface UsageTotals {
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cost_microdollars: number;
}

export interface UsageFilter {
  groupBy: GroupBy;
  /** Inclusive UTC days, YYYY-MM-DD. */
  startDay: string;
  endDay: string;
  apiKeyId?: string;
}

export function usageRepo(db: Database) {
  const t = db.t.usageRollups;
  const column = { model: t.model, provider: t.provider, api_key: t.apiKeyId, day: t.day } as const;
  // SUM over bigint columns comes back as numeric text on Postgres: every figure goes through Number().
  const n = (v: unknown) => Number(v ?? 0);
  return {
    async aggregate(workspaceId: string, f: UsageFilter): Promise<{ data: ({ group: string } & UsageTotals)[]; total: UsageTotals }> {
      const conds: SQL[] = [eq(t.workspaceId, workspaceId), gte(t.day, f.startDay), lte(t.day, f.endDay)];
      if (f.apiKeyId !== undefined) conds.push(eq(t.apiKeyId, f.apiKeyId));
      const g = column[f.groupBy];
      const rows = await db.orm
        .select({
          group: g,
          requests: sql<unknown>`sum(${t.requests})`,
          errors: sql<unknown>`sum(${t.errors})`,
          input: sql<unknown>`sum(${t.inputTokens})`,
          output: sql<unknown>`sum(${t.outputTokens})`,
          cost: sql<unknown>`sum(${t.costMicrodollars})`,
        })
        .from(t)
        .where(and(...conds))
        .groupBy(g)
        .orderBy(asc(g));
      const total: UsageTotals = { requests: 0, errors: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, cost_microdollars: 0 };
      const data = rows.map((r) => {
        const row = {
          group: r.group,
          requests: n(r.requests),
          errors: n(r.errors),
          input_tokens: n(r.input),
          output_tokens: n(r.output),
          total_tokens: n(r.input) + n(r.output),
          cost_microdollars: n(r.cost),
        };
        for (const k of Object.keys(total) as (keyof UsageTotals)[]) total[k] += row[k];
        return row;
      });
      return { data, total };
    },
  };
}
export type UsageRepo = ReturnType<typeof usageRepo>;
