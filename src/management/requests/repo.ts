// Request records (one row per attempt) for the request list and the request detail.
import { and, asc, count, desc, eq, getTableColumns, gte, lt, or, type SQL } from "drizzle-orm";
import { Type, type Static } from "@sinclair/typebox";
import type { Database } from "../../platform/db/database";
import { Iso, IntOrNull, pageOf, StringOrNull } from "../response-schemas";

export type RequestRow = typeof import("../../platform/db/schema-sqlite").requestRecords.$inferSelect;
/** A row of the list: every column but the routing decision, which only the detail shows. */
export type ListedRow = Omit<RequestRow, "routingDecision">;

export interface RequestFilter {
  start?: number;
  end?: number;
  model?: string;
  provider?: string;
  traceId?: string;
  success?: boolean;
  apiKeySource?: "platform" | "byok";
  isFinalAttempt: boolean;
  limit: number;
  offset: number;
}

export function requestRepo(db: Database) {
  const t = db.t.requestRecords;
  const { routingDecision: _detailOnly, ...listed } = getTableColumns(t);
  return {
    async list(workspaceId: string, f: RequestFilter): Promise<{ rows: ListedRow[]; total: number }> {
      const conds: (SQL | undefined)[] = [eq(t.workspaceId, workspaceId), eq(t.isFinalAttempt, f.isFinalAttempt)];
      if (f.start !== undefined) conds.push(gte(t.createdAt, f.start));
      if (f.end !== undefined) conds.push(lt(t.createdAt, f.end));
      // `model` matches what the client asked for or the canonical ID it resolved to.
      if (f.model !== undefined) conds.push(or(eq(t.model, f.model), eq(t.modelCanonical, f.model)));
      if (f.provider !== undefined) conds.push(eq(t.provider, f.provider));
      if (f.traceId !== undefined) conds.push(eq(t.traceId, f.traceId));
      if (f.success !== undefined) conds.push(eq(t.success, f.success));
      if (f.apiKeySource !== undefined) conds.push(eq(t.apiKeySource, f.apiKeySource));
      const where = and(...conds);
      const rows = await db.orm
        .select(listed)
        .from(t)
        .where(where)
        .orderBy(desc(t.createdAt), desc(t.requestId), desc(t.attempt))
        .limit(f.limit)
        .offset(f.offset);
      const total = await db.orm.select({ n: count() }).from(t).where(where);
      return { rows, total: Number(total[0]?.n ?? 0) };
    },
    /** Every attempt of one call, first to last. */
    async attempts(workspaceId: string, requestId: string): Promise<RequestRow[]> {
      return db.orm
        .select()
        .from(t)
        .where(and(eq(t.workspaceId, workspaceId), eq(t.requestId, requestId)))
        .orderBy(asc(t.attempt));
    },
  };
}
export type RequestRepo = ReturnType<typeof requestRepo>;

const parse = <T>(s: string | null): T | null => (s === null ? null : (JSON.parse(s) as T));

export const RequestRecord = Type.Object({
  request_id: Type.String(),
  created_at: Iso,
  endpoint: Type.String(),
  model: StringOrNull,
  model_canonical: StringOrNull,
  provider: StringOrNull,
  provider_model_id: StringOrNull,
  api_key_id: StringOrNull,
  api_key_source: StringOrNull,
  status_code: Type.Integer(),
  success: Type.Boolean(),
  is_final_attempt: Type.Boolean(),
  attempt: Type.Integer(),
  latency_ms: Type.Integer(),
  ttft_ms: IntOrNull,
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  cached_tokens: Type.Integer(),
  reasoning_tokens: Type.Integer(),
  cost_microdollars: Type.Integer(),
  usage_estimated: Type.Boolean({ description: "tokens and cost are the gateway's estimate, not the provider's report" }),
  routing_strategy: StringOrNull,
  error_code: StringOrNull,
  trace_id: StringOrNull,
  user_id: StringOrNull,
  tags: Type.Union([Type.Array(Type.String()), Type.Null()]),
  custom_fields: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
});
export const RequestPage = pageOf("requests", RequestRecord);

export const renderRequest = (r: ListedRow): Static<typeof RequestRecord> => ({
  request_id: r.requestId,
  created_at: new Date(r.createdAt).toISOString(),
  endpoint: r.endpoint,
  model: r.model,
  model_canonical: r.modelCanonical,
  provider: r.provider,
  provider_model_id: r.providerModelId,
  api_key_id: r.apiKeyId,
  api_key_source: r.apiKeySource,
  status_code: r.statusCode,
  success: r.success,
  is_final_attempt: r.isFinalAttempt,
  attempt: r.attempt,
  latency_ms: r.latencyMs,
  ttft_ms: r.ttftMs,
  input_tokens: r.inputTokens,
  output_tokens: r.outputTokens,
  cached_tokens: r.cachedTokens,
  reasoning_tokens: r.reasoningTokens,
  cost_microdollars: r.costMicrodollars,
  usage_estimated: r.usageEstimated,
  routing_strategy: r.routingStrategy,
  error_code: r.errorCode,
  trace_id: r.traceId,
  user_id: r.userId,
  tags: parse<string[]>(r.tags),
  custom_fields: parse<Record<string, string>>(r.customFields),
});

/** The stored routing decision (routing_metadata's names); null on rows written before it was kept. */
export const StoredRoutingDecision = Type.Object({
  ttft_ms_estimate: Type.Number({ description: "the route's p50 TTFT estimate, ms" }),
  throughput_tps_estimate: Type.Number({ description: "the route's p50 throughput estimate, tokens/s" }),
  exploration: Type.Boolean({ description: "the route led to measure it" }),
  sticky: Type.Boolean({ description: "the route led because the conversation's prompt cache lives there" }),
  warnings: Type.Array(Type.Object({ type: Type.String(), code: Type.String(), message: Type.String() })),
});
export type StoredRoutingDecision = Static<typeof StoredRoutingDecision>;

export const RequestAttempt = Type.Composite([
  RequestRecord,
  Type.Object({ routing_decision: Type.Union([StoredRoutingDecision, Type.Null()]) }),
]);
/** The final attempt's fields with every attempt, first to last. */
export const RequestDetail = Type.Composite([RequestAttempt, Type.Object({ attempts: Type.Array(RequestAttempt) })]);

/** One attempt in a request's detail: the list's fields and the routing decision. */
export const renderAttempt = (r: RequestRow): Static<typeof RequestAttempt> => ({
  ...renderRequest(r),
  routing_decision: parse<StoredRoutingDecision>(r.routingDecision),
});
