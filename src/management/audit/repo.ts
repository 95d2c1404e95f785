// The audit log: one row per management write (and per request-detail read), written in the same
// transaction as the change it describes. `data` holds names, flags and IDs, never a secret.
import { and, count, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import { Type, type Static } from "@sinclair/typebox";
import type { Database, Orm } from "../../platform/db/database";
import { newId } from "../../platform/ids";
import { AUDIT_TYPES, type AuditType } from "./types";
import { Iso, pageOf, StringOrNull } from "../response-schemas";

export { AUDIT_TYPES, type AuditType };

export interface AuditInput {
  workspaceId: string;
  type: AuditType;
  actorApiKeyId: string | null;
  targetId: string | null;
  data?: Record<string, unknown>;
}

export type AuditRow = typeof import("../../platform/db/schema-sqlite").auditEvents.$inferSelect;

export async function recordAudit(o: Orm, db: Database, ev: AuditInput): Promise<void> {
  await o.insert(db.t.auditEvents).values({
    id: newId(),
    workspaceId: ev.workspaceId,
    type: ev.type,
    actorApiKeyId: ev.actorApiKeyId,
    targetId: ev.targetId,
    data: JSON.stringify(ev.data ?? {}),
    createdAt: Date.now(),
  });
}

/** Writes one audit row inside the caller's transaction: what every feature that changes something receives. */
export type AuditWriter = (o: Orm, ev: AuditInput) => Promise<void>;
export const auditWriter =
  (db: Database): AuditWriter =>
  (o, ev) =>
    recordAudit(o, db, ev);

/** Runs a function in one transaction (Database.tx): handed to features instead of the database. */
export type Transact = <T>(fn: (o: Orm) => Promise<T>) => Promise<T>;

export interface AuditFilter {
  type?: string;
  start?: number;
  end?: number;
  limit: number;
  offset: number;
}

export function auditRepo(db: Database) {
  const t = db.t.auditEvents;
  return {
    async list(workspaceId: string, f: AuditFilter): Promise<{ rows: AuditRow[]; total: number }> {
      const conds: SQL[] = [eq(t.workspaceId, workspaceId)];
      if (f.type) conds.push(eq(t.type, f.type));
      if (f.start !== undefined) conds.push(gte(t.createdAt, f.start));
      if (f.end !== undefined) conds.push(lt(t.createdAt, f.end));
      const where = and(...conds);
      const rows = await db.orm.select().from(t).where(where).orderBy(desc(t.createdAt), desc(t.id)).limit(f.limit).offset(f.offset);
      const total = await db.orm.select({ n: count() }).from(t).where(where);
      return { rows, total: Number(total[0]?.n ?? 0) };
    },
  };
}
export type AuditRepo = ReturnType<typeof auditRepo>;

export const AuditEvent = Type.Object({
  event_id: Type.String(),
  workspace_id: Type.String(),
  type: Type.Union(AUDIT_TYPES.map((t) => Type.Literal(t))),
  actor_api_key_id: StringOrNull,
  target_id: StringOrNull,
  created_at: Iso,
  data: Type.Record(Type.String(), Type.Unknown(), { description: "names, flags and IDs of the change; never a secret" }),
});
export const AuditPage = pageOf("events", AuditEvent);

export const renderAuditEvent = (e: AuditRow): Static<typeof AuditEvent> => ({
  event_id: e.id,
  workspace_id: e.workspaceId,
  type: e.type as AuditType,
  actor_api_key_id: e.actorApiKeyId,
  target_id: e.targetId,
  created_at: new Date(e.createdAt).toISOString(),
  data: JSON.parse(e.data) as Record<string, unknown>,
});
