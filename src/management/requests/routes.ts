// Request records: the list (final attempts by default) and one call's detail with every attempt. Reading
// a detail is itself audited (request.detail.read): it can expose prompt metadata such as user IDs.
import { Type } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { ApiError } from "../../http/errors";
import type { AuditWriter, Transact } from "../audit/repo";
import { mount, type Mounting } from "../mount";
import { checkQuery, DateParam, dateRange, Limit, Offset, oneOf } from "../validate";
import { renderAttempt, renderRequest, RequestDetail, RequestPage, type RequestRepo } from "./repo";

const Bool = Type.Boolean({ description: "true or false" });
export const RequestListQuery = Type.Object({
  start_date: Type.Optional(DateParam),
  end_date: Type.Optional(DateParam),
  model: Type.Optional(Type.String({ minLength: 1, description: "a model ID as requested, or its canonical ID" })),
  provider: Type.Optional(Type.String({ minLength: 1, description: "a provider ID" })),
  trace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "a gateway.metadata.trace_id" })),
  success: Type.Optional(Bool),
  api_key_source: Type.Optional(oneOf(["platform", "byok"] as const)),
  is_final_attempt: Type.Optional(Bool),
  limit: Type.Optional(Limit(100, 100)),
  offset: Type.Optional(Offset),
});

/** What the request routes call: the records, and the audit row a detail read writes. */
export interface RequestFeature {
  requests: RequestRepo;
  tx: Transact;
  audit: AuditWriter;
}

export function requestRoutes(app: Elysia, m: Mounting, d: RequestFeature): Elysia {
  mount(
    app,
    m,
    "requests.list",
    async (c) => {
      const q = checkQuery(RequestListQuery, c.query);
      const range = dateRange(q.start_date, q.end_date);
      const limit = q.limit ?? 100;
      const offset = q.offset ?? 0;
      const { rows, total } = await d.requests.list(c.workspaceId, {
        ...range,
        model: q.model,
        provider: q.provider,
        traceId: q.trace_id,
        success: q.success,
        apiKeySource: q.api_key_source,
        isFinalAttempt: q.is_final_attempt ?? true,
        limit,
        offset,
      });
      return { status: 200, body: { requests: rows.map(renderRequest), count: rows.length, total, limit, offset } };
    },
    {
      query: RequestListQuery,
      response: RequestPage,
      description:
        "Newest first. `total` counts every match; `limit` 1-100, `offset` 0 to 1,000,000,000 (plain digits). A record's `usage_estimated` is true when its tokens and cost are the gateway's estimate (a stream that ended before the provider reported usage: four characters a token), false when they are the provider's own.",
    },
  );
  mount(
    app,
    m,
    "requests.get",
    async (c) => {
      const requestId = c.params.request_id ?? "";
      const attempts = await d.requests.attempts(c.workspaceId, requestId);
      if (attempts.length === 0) throw new ApiError("not_found", "Request not found.");
      const final = attempts.find((a) => a.isFinalAttempt) ?? attempts[attempts.length - 1]!;
      await d.tx((o) =>
        d.audit(o, { workspaceId: c.workspaceId, type: "request.detail.read", actorApiKeyId: c.actorId, targetId: requestId }),
      );
      return { status: 200, body: { ...renderAttempt(final), attempts: attempts.map(renderAttempt) } };
    },
    {
      response: RequestDetail,
      description:
        "The final attempt's record with `attempts[]` (every attempt, first to last); `usage_estimated` as in the list. Each attempt, and the top level for the final one, carries `routing_decision`: what the router knew when it chose that attempt's route, as `routing_metadata` reported it — `ttft_ms_estimate` and `throughput_tps_estimate` (its p50 estimates), `exploration` and `sticky` (why the route led), and `warnings` (`type`, `code`, `message`: what was dropped from the body). It is null for an attempt no route was planned for and for records stored before the gateway kept it.",
    },
  );
  return app;
}
