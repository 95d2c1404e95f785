// Budget scopes as rules, and the spend of a budget's current period read back from request records.
// The same applicability rule serves both the live counters (budgets.ts) and this start-up query, so a
// restart sees the spend the counters had.
import { and, eq, gte, lt, ne, isNull, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../platform/db/database";
import type { budgets } from "../platform/db/schema-sqlite";
import type { BudgetPeriod } from "./periods";

export type BudgetScope = "workspace" | "api_key" | "byok";

export interface BudgetDef {
  id: string;
  workspaceId: string;
  scope: BudgetScope;
  /** The API key ID (api_key), the provider ID (byok), "" (workspace). */
  scopeId: string;
  period: BudgetPeriod;
  limitMicrodollars: number;
  enforce: boolean;
  /** workspace and api_key scopes: count calls served with a BYOK key too. Default false. */
  includeByok: boolean;
}

/** Who is spending: known per attempt, once routing has chosen the provider and the credential. */
export interface SpendContext {
  workspaceId: string;
  apiKeyId: string | null;
  /** The provider serving the attempt; null before routing (then only non-BYOK scopes can apply). */
  provider: string | null;
  /** The attempt uses a workspace BYOK key (not charged credits, and not counted unless include_byok). */
  byok: boolean;
}

export function budgetApplies(def: BudgetDef, ctx: SpendContext): boolean {
  if (def.workspaceId !== ctx.workspaceId) return false;
  switch (def.scope) {
    case "workspace":
      return !ctx.byok || def.includeByok;
    case "api_key":
      return ctx.apiKeyId === def.scopeId && (!ctx.byok || def.includeByok);
    case "byok":
      return ctx.byok && ctx.provider === def.scopeId;
  }
}

/** Sum of final attempts' costs in [start, end) that the budget counts: budgetApplies, in SQL. */
export async function loadSpend(db: Database, def: BudgetDef, start: number, end: number): Promise<number> {
  const t = db.t.requestRecords;
  const notByok = or(isNull(t.apiKeySource), ne(t.apiKeySource, "byok")) as SQL;
  const conds: SQL[] = [eq(t.workspaceId, def.workspaceId), eq(t.isFinalAttempt, true), gte(t.createdAt, start), lt(t.createdAt, end)];
  if (def.scope === "api_key") conds.push(eq(t.apiKeyId, def.scopeId));
  if (def.scope === "byok") conds.push(eq(t.apiKeySource, "byok"), eq(t.provider, def.scopeId));
  else if (!def.includeByok) conds.push(notByok);
  const rows = await db.orm
    .select({ total: sql<string | number | null>`sum(${t.costMicrodollars})` })
    .from(t)
    .where(and(...conds));
  return Number(rows[0]?.total ?? 0);
}

/** A budgets table row → BudgetDef. */
export function budgetFromRow(row: typeof budgets.$inferSelect): BudgetDef {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    scope: row.scope as BudgetScope,
    scopeId: row.scopeId,
    period: row.period as BudgetPeriod,
    limitMicrodollars: row.limitMicrodollars,
    enforce: row.enforce,
    includeByok: row.includeByok,
  };
}
