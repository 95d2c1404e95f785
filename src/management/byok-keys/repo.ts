// BYOK key storage: the secret only as AES-256-GCM ciphertext (see crypto/secret-box.ts).
import { and, asc, eq, ne } from "drizzle-orm";
import type { Database, Orm } from "../../platform/db/database";

export type ByokRow = typeof import("../../platform/db/schema-sqlite").byokKeys.$inferSelect;
export type ValidationStatus = "valid" | "pending" | "invalid" | "error";
export type TierSource = "auto_detected" | "user_specified" | "fallback";

export type ByokPatch = Partial<Pick<ByokRow, "name" | "isDefault" | "disabled" | "accountTier" | "accountTierSource">>;

export function byokRepo(db: Database) {
  const t = db.t.byokKeys;
  // Built once, on first use (after migrations): the in-memory store re-reads every routable key every 2 s.
  const buildRoutable = () =>
    db.orm
      .select()
      .from(t)
      .where(and(eq(t.isDefault, true), eq(t.disabled, false)))
      .prepare();
  let allRoutable: ReturnType<typeof buildRoutable> | undefined;
  const byId = (ws: string, id: string) => and(eq(t.workspaceId, ws), eq(t.id, id));
  return {
    async list(workspaceId: string): Promise<ByokRow[]> {
      return db.orm.select().from(t).where(eq(t.workspaceId, workspaceId)).orderBy(asc(t.createdAt), asc(t.id));
    },
    async get(workspaceId: string, id: string): Promise<ByokRow | undefined> {
      return (await db.orm.select().from(t).where(byId(workspaceId, id)).limit(1))[0];
    },
    /** Keys routing may use: default and enabled, optionally of one workspace. */
    async routable(workspaceId?: string): Promise<ByokRow[]> {
      if (!workspaceId) return (allRoutable ??= buildRoutable()).execute();
      const conds = [eq(t.isDefault, true), eq(t.disabled, false), eq(t.workspaceId, workspaceId)];
      return db.orm
        .select()
        .from(t)
        .where(and(...conds));
    },
    async insert(o: Orm, row: ByokRow): Promise<void> {
      await o.insert(t).values(row);
    },
    async update(o: Orm, workspaceId: string, id: string, patch: ByokPatch, now: number): Promise<ByokRow | undefined> {
      return (
        await o
          .update(t)
          .set({ ...patch, updatedAt: now })
          .where(byId(workspaceId, id))
          .returning()
      )[0];
    },
    /** Only one default per provider and workspace: the others stop being default. */
    async clearDefault(o: Orm, workspaceId: string, provider: string, exceptId: string, now: number): Promise<void> {
      await o
        .update(t)
        .set({ isDefault: false, updatedAt: now })
        .where(and(eq(t.workspaceId, workspaceId), eq(t.provider, provider), eq(t.isDefault, true), ne(t.id, exceptId)));
    },
    async remove(o: Orm, workspaceId: string, id: string): Promise<ByokRow | undefined> {
      return (await o.delete(t).where(byId(workspaceId, id)).returning())[0];
    },
  };
}
export type ByokRepo = ReturnType<typeof byokRepo>;
