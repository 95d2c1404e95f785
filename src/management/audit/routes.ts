// The audit log, newest first, filtered by type and date range.
import { Type } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { mount, type Mounting } from "../mount";
import { checkQuery, DateParam, dateRange, Limit, Offset, oneOf } from "../validate";
import { AUDIT_TYPES, AuditPage, renderAuditEvent, type AuditRepo } from "./repo";

export const AuditQuery = Type.Object({
  type: Type.Optional(oneOf(AUDIT_TYPES)),
  start_date: Type.Optional(DateParam),
  end_date: Type.Optional(DateParam),
  limit: Type.Optional(Limit(100, 100)),
  offset: Type.Optional(Offset),
});

export function auditRoutes(app: Elysia, m: Mounting, d: { audit: AuditRepo }): Elysia {
  mount(
    app,
    m,
    "audit.list",
    async (c) => {
      const q = checkQuery(AuditQuery, c.query);
      const limit = q.limit ?? 100;
      const offset = q.offset ?? 0;
      const { rows, total } = await d.audit.list(c.workspaceId, {
        type: q.type,
        ...dateRange(q.start_date, q.end_date),
        limit,
        offset,
      });
      return { status: 200, body: { events: rows.map(renderAuditEvent), count: rows.length, total, limit, offset } };
    },
    { query: AuditQuery, response: AuditPage },
  );
  return app;
}
