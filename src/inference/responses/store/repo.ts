// The stored_responses table: one row per kept response, keyed by (workspace, ID), so another
// workspace's ID is never found. Expired rows are not found either; sweep() deletes them.
import { and, eq, gt, lte, or } from "drizzle-orm";
import type { Database, Row } from "../../../platform/db/database";

export type StoredRow = Row<"storedResponses">;

export interface StoredResponsesRepo {
  /** One transaction; a row whose (workspace, ID) is stored already is skipped (a retried batch). */
  insert(rows: readonly StoredRow[]): Promise<void>;
  find(workspaceId: string, id: string, now: number): Promise<StoredRow | null>;
  /** True when a live row was there. */
  remove(workspaceId: string, id: string, now: number): Promise<boolean>;
  /** Deletes up to `limit` expired rows; returns how many. */
  sweep(now: number, limit: number): Promise<number>;
}

export function storedResponsesRepo(db: Database): StoredResponsesRepo {
  const t = db.t.storedResponses;
  const key = (workspaceId: string, id: string) => and(eq(t.workspaceId, workspaceId), eq(t.id, id));
  return {
    async insert(rows) {
      await db.tx((orm) => db.insertIgnoring(orm, "storedResponses", rows, ["workspaceId", "id"], []));
    },
    async find(workspaceId, id, now) {
      const rows = await db.orm
        .select()
        .from(t)
        .where(and(key(workspaceId, id), gt(t.expiresAt, now)))
        .limit(1);
      return rows[0] ?? null;
    },
    async remove(workspaceId, id, now) {
      const gone = await db.orm
        .delete(t)
        .where(and(key(workspaceId, id), gt(t.expiresAt, now)))
        .returning({ id: t.id });
      return gone.length > 0;
    },
    async sweep(now, limit) {
      // In chunks: one statement over a month of rows would hold SQLite's single connection (and the event loop).
      const expired = await db.orm.select({ workspaceId: t.workspaceId, id: t.id }).from(t).where(lte(t.expiresAt, now)).limit(limit);
      if (expired.length === 0) return 0;
      await db.orm.delete(t).where(or(...expired.map((r) => key(r.workspaceId, r.id))));
      return expired.length;
    },
  };
}
