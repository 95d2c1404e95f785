// Budgets: one per (workspace, scope, scope ID, period), limits in integer microdollars.
import { and, asc, eq } from "drizzle-orm";
import type { Database, Orm } from "../../platform/db/database";

export type BudgetRow = typeof import("../../platform/db/schema-sqlite").budgets.$inferSelect;
export type BudgetPatch = Partial<Pick<BudgetRow, "limitMicrodollars" | "enforce" | "includeByok">>;

export function budgetRepo(db: Database) {
  const t = db.t.budgets;
  const byId = (ws: string, id: string) => and(eq(t.workspaceId, ws), eq(t.id, id));
  return {
    async list(workspaceId: string): Promise<BudgetRow[]> {
      return db.orm.select().from(t).where(eq(t.workspaceId, workspaceId)).orderBy(asc(t.createdAt), asc(t.id));
    },
    async get(workspaceId: string, id: string): Promise<BudgetRow | undefined> {
      return (await db.orm.select().from(t).where(byId(workspaceId, id)).limit(1))[0];
    },
    async find(o: Orm, workspaceId: string, scope: string, scopeId: string, period: string): Promise<BudgetRow | undefined> {
      const where = and(eq(t.workspaceId, workspaceId), eq(t.scope, scope), eq(t.scopeId, scopeId), eq(t.period, period));
      return (await o.select().from(t).where(where).limit(1))[0];
    },
    async insert(o: Orm, row: BudgetRow): Promise<void> {
      await o.insert(t).values(row);
    },
    async update(o: Orm, workspaceId: string, id: string, patch: BudgetPatch, now: number): Promise<BudgetRow | undefined> {
      return (
        await o
          .update(t)
          .set({ ...patch, updatedAt: now })
          .where(byId(workspaceId, id))
          .returning()
      )[0];
    },
    async remove(o: Orm, workspaceId: string, id: string): Promise<BudgetRow | undefined> {
      return (await o.delete(t).where(byId(workspaceId, id)).returning())[0];
    },
  };
}
export type BudgetRepo = ReturnType<typeof budgetRepo>;
