// Request records (one row per attempt) for the request list and the request detail.
import { and, asc, count, desc, eq, getTableColumns, gte, lt, or, type SQL } from "drizzle-orm";
import type { Database } from "../../platform/db/database";

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

export const renderRequest = (r: ListedRow) => ({
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
export interface StoredRoutingDecision {
  ttft_ms_estimate: number;
  throughput_tps_estimate: number;
  exploration: boolean;
  sticky: boolean;
  warnings: { type: string; code: string; message: string }[];
}

/** One attempt in a request's detail: the list's fields and the routing decision. */
export const renderAttempt = (r: RequestRow) => ({
  ...renderRequest(r),
  routing_decision: parse<StoredRoutingDecision>(r.routingDecision),
});
