// Completed Idempotency-Key requests: the body hash and the response, kept 24 hours.
import { and, eq, gt, lt } from "drizzle-orm";
import type { Database, Orm } from "../../platform/db/database";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  bodyHash: string;
  status: number;
  body: unknown;
}

export function idempotencyStore(db: Database) {
  const t = db.t.idempotencyRecords;
  const at = (ws: string, route: string, key: string) => and(eq(t.workspaceId, ws), eq(t.route, route), eq(t.key, key));
  return {
    async find(ws: string, route: string, key: string, now = Date.now()): Promise<StoredResponse | undefined> {
      const rows = await db.orm
        .select()
        .from(t)
        .where(and(at(ws, route, key), gt(t.expiresAt, now)))
        .limit(1);
      const r = rows[0];
      if (!r || r.state !== "completed" || r.responseStatus === null) return undefined;
      return { bodyHash: r.bodyHash, status: r.responseStatus, body: r.responseBody === null ? null : JSON.parse(r.responseBody) };
    },
    /** In `orm`'s transaction if given, so that the record commits with the write it answers. */
    async save(ws: string, route: string, key: string, res: StoredResponse, now = Date.now(), orm?: Orm): Promise<void> {
      const row = {
        workspaceId: ws,
        route,
        key,
        bodyHash: res.bodyHash,
        state: "completed",
        responseStatus: res.status,
        responseBody: JSON.stringify(res.body ?? null),
        createdAt: now,
        expiresAt: now + IDEMPOTENCY_TTL_MS,
      };
      const run = async (o: Orm) => {
        // Expired records of this workspace go first, so the table stays small without a sweeper.
        await o.delete(t).where(and(eq(t.workspaceId, ws), lt(t.expiresAt, now)));
        await o
          .insert(t)
          .values(row)
          .onConflictDoUpdate({ target: [t.workspaceId, t.route, t.key], set: row });
      };
      await (orm ? run(orm) : db.tx(run));
    },
  };
}
export type IdempotencyStore = ReturnType<typeof idempotencyStore>;
