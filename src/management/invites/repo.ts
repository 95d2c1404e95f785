// Invites: the single-use token is shown once at creation and stored only as its SHA-256.
import { and, asc, eq, isNull } from "drizzle-orm";
import { Type, type Static } from "@sinclair/typebox";
import type { Database, Orm } from "../../platform/db/database";
import { Member, RoleLiteral, type Role } from "../members/repo";
import { Iso, IsoOrNull, listOf } from "../response-schemas";

export type InviteRow = typeof import("../../platform/db/schema-sqlite").invites.$inferSelect;

export function inviteRepo(db: Database) {
  const t = db.t.invites;
  const byId = (ws: string, id: string) => and(eq(t.workspaceId, ws), eq(t.id, id));
  return {
    async list(workspaceId: string): Promise<InviteRow[]> {
      return db.orm.select().from(t).where(eq(t.workspaceId, workspaceId)).orderBy(asc(t.createdAt), asc(t.id));
    },
    async insert(o: Orm, row: InviteRow): Promise<void> {
      await o.insert(t).values(row);
    },
    async remove(o: Orm, workspaceId: string, id: string): Promise<InviteRow | undefined> {
      return (await o.delete(t).where(byId(workspaceId, id)).returning())[0];
    },
    /** Marks an open invite accepted; undefined when the token is unknown or already used. */
    async accept(o: Orm, tokenHash: string, now: number): Promise<InviteRow | undefined> {
      const where = and(eq(t.tokenHash, tokenHash), isNull(t.acceptedAt));
      return (await o.update(t).set({ acceptedAt: now }).where(where).returning())[0];
    },
  };
}
export type InviteRepo = ReturnType<typeof inviteRepo>;

export const Invite = Type.Object({
  invite_id: Type.String(),
  workspace_id: Type.String(),
  email: Type.String(),
  role: RoleLiteral,
  expires_at: Iso,
  accepted_at: IsoOrNull,
  created_at: Iso,
});
export const InviteList = listOf("invites", Invite);
/** The create response: the token, shown this once. */
export const InviteCreated = Type.Composite([Invite, Type.Object({ token: Type.String({ description: "the invite token, shown once" }) })]);
export const InviteAccepted = Type.Object({ member: Member, invite: Invite });

export const renderInvite = (i: InviteRow): Static<typeof Invite> => ({
  invite_id: i.id,
  workspace_id: i.workspaceId,
  email: i.email,
  role: i.role as Role,
  expires_at: new Date(i.expiresAt).toISOString(),
  accepted_at: i.acceptedAt === null ? null : new Date(i.acceptedAt).toISOString(),
  created_at: new Date(i.createdAt).toISOString(),
});
