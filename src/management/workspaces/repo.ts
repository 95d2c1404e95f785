// Workspace storage. Written once against the Database facade (both dialects).
import { asc, eq } from "drizzle-orm";
import { Type, type Static } from "@sinclair/typebox";
import type { Database, Orm } from "../../platform/db/database";
import { newId } from "../../platform/ids";
import { Iso, listOf } from "../response-schemas";

export interface WorkspaceRow {
  id: string;
  name: string;
  isDefault: boolean;
  createdAt: number;
  updatedAt: number;
}

export function workspaceRepo(db: Database) {
  const t = db.t.workspaces;
  return {
    async get(id: string): Promise<WorkspaceRow | undefined> {
      const rows = await db.orm.select().from(t).where(eq(t.id, id)).limit(1);
      return rows[0];
    },
    async list(): Promise<WorkspaceRow[]> {
      return db.orm.select().from(t).orderBy(asc(t.createdAt));
    },
    async create(name: string, isDefault = false): Promise<WorkspaceRow> {
      const now = Date.now();
      const row = { id: newId(), name, isDefault, createdAt: now, updatedAt: now };
      await db.tx(async (o) => {
        await o.insert(t).values(row);
      });
      return row;
    },
    /** Inside the caller's transaction when `orm` is given (the audit row commits with it). */
    async rename(id: string, name: string, orm?: Orm): Promise<WorkspaceRow | undefined> {
      const run = (o: Orm) => o.update(t).set({ name, updatedAt: Date.now() }).where(eq(t.id, id)).returning();
      const rows = orm ? await run(orm) : await db.tx(run);
      return rows[0];
    },
    /** The default workspace, created on first start. */
    async ensureDefault(): Promise<WorkspaceRow> {
      const found = await db.orm.select().from(t).where(eq(t.isDefault, true)).limit(1);
      if (found[0]) return found[0];
      return this.create("Default", true);
    },
  };
}
export type WorkspaceRepo = ReturnType<typeof workspaceRepo>;

export const Workspace = Type.Object({ workspace_id: Type.String(), name: Type.String(), created_at: Iso, updated_at: Iso });
export const WorkspaceList = listOf("workspaces", Workspace);

export const renderWorkspace = (w: WorkspaceRow): Static<typeof Workspace> => ({
  workspace_id: w.id,
  name: w.name,
  created_at: new Date(w.createdAt).toISOString(),
  updated_at: new Date(w.updatedAt).toISOString(),
});
