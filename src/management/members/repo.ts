// Workspace members (email + role). Members are records the workspace keeps; API keys are the
// credentials, so a member has no login of its own here.
import { and, asc, count, eq } from "drizzle-orm";
import { Type, type Static } from "@sinclair/typebox";
import type { Database, Orm } from "../../platform/db/database";
import { Iso, listOf } from "../response-schemas";

export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export type MemberRow = typeof import("../../platform/db/schema-sqlite").members.$inferSelect;

export function memberRepo(db: Database) {
  const t = db.t.members;
  const byId = (ws: string, id: string) => and(eq(t.workspaceId, ws), eq(t.id, id));
  return {
    async list(workspaceId: string): Promise<MemberRow[]> {
      return db.orm.select().from(t).where(eq(t.workspaceId, workspaceId)).orderBy(asc(t.createdAt), asc(t.id));
    },
    async get(workspaceId: string, id: string): Promise<MemberRow | undefined> {
      return (await db.orm.select().from(t).where(byId(workspaceId, id)).limit(1))[0];
    },
    async byEmail(o: Orm, workspaceId: string, email: string): Promise<MemberRow | undefined> {
      return (
        await o
          .select()
          .from(t)
          .where(and(eq(t.workspaceId, workspaceId), eq(t.email, email)))
          .limit(1)
      )[0];
    },
    async owners(o: Orm, workspaceId: string): Promise<number> {
      const rows = await o
        .select({ n: count() })
        .from(t)
        .where(and(eq(t.workspaceId, workspaceId), eq(t.role, "owner")));
      return Number(rows[0]?.n ?? 0);
    },
    async insert(o: Orm, row: MemberRow): Promise<void> {
      await o.insert(t).values(row);
    },
    async setRole(o: Orm, workspaceId: string, id: string, role: Role): Promise<MemberRow | undefined> {
      return (await o.update(t).set({ role }).where(byId(workspaceId, id)).returning())[0];
    },
    async remove(o: Orm, workspaceId: string, id: string): Promise<MemberRow | undefined> {
      return (await o.delete(t).where(byId(workspaceId, id)).returning())[0];
    },
  };
}
export type MemberRepo = ReturnType<typeof memberRepo>;

export const RoleLiteral = Type.Union(ROLES.map((r) => Type.Literal(r)));
export const Member = Type.Object({
  member_id: Type.String(),
  workspace_id: Type.String(),
  email: Type.String(),
  role: RoleLiteral,
  created_at: Iso,
});
export const MemberList = listOf("members", Member);

export const renderMember = (m: MemberRow): Static<typeof Member> => ({
  member_id: m.id,
  workspace_id: m.workspaceId,
  email: m.email,
  role: m.role as Role,
  created_at: new Date(m.createdAt).toISOString(),
});
