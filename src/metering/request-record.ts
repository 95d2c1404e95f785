// One attempt of one call, as the pipeline hands it to the RecordWriter (docs/contract.md "Records and usage").
// Every attempt of a call shares its requestId; attempt numbers start at 1 and only the last attempt has
// isFinalAttempt. Times are epoch ms; money is integer microdollars.
import type { requestRecords } from "../platform/db/schema-sqlite";

export type ApiKeySource = "platform" | "byok";

export interface RequestRecord {
  /** Server-generated, unique per attempt (time-ordered): the key of the record and of its credit debit. */
  recordId: string;
  /** The X-Request-ID of the call. */
  requestId: string;
  attempt: number;
  workspaceId: string;
  createdAt: number;
  /** e.g. "chat_completions", "responses", "messages". */
  endpoint: string;
  /** The model ID as the client asked for it. */
  model: string | null;
  modelCanonical: string | null;
  provider: string | null;
  providerModelId: string | null;
  apiKeyId: string | null;
  apiKeySource: ApiKeySource | null;
  /** What the client received (final attempt), or what the upstream answered / 0 for a connection failure. */
  statusCode: number;
  success: boolean;
  isFinalAttempt: boolean;
  latencyMs: number;
  ttftMs: number | null;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  costMicrodollars: number;
  routingStrategy: string | null;
  errorCode: string | null;
  traceId: string | null;
  userId: string | null;
  tags: string[] | null;
  customFields: Record<string, string> | null;
  /** The tokens and cost are the gateway's estimate (the upstream never reported usage); stored as false when absent. */
  usageEstimated?: boolean;
  /** What the router knew when it chose this attempt's route; null (or absent) when no route was planned. */
  routingDecision?: RoutingDecision | null;
  /**
   * Debit the workspace's credits for this attempt (platform credential, credits enforced or not).
   * Not stored: it tells the writer to add a ledger row for a final attempt with cost > 0.
   */
  chargeCredits: boolean;
}

/**
 * The routing decision as routing_metadata shows it, held as the router left it: the writer rounds and
 * serialises it (toRow), so the request path only fills a small object.
 */
export interface RoutingDecision {
  ttftMsEstimate: number;
  throughputTpsEstimate: number;
  exploration: boolean;
  sticky: boolean;
  /** The attempt's warnings (the plan's own array unless the translation dropped something too). */
  warnings: readonly { type: string; code: string; message: string }[];
}

export type RequestRecordRow = typeof requestRecords.$inferInsert;

export function toRow(r: RequestRecord): RequestRecordRow {
  return {
    id: r.recordId,
    requestId: r.requestId,
    attempt: r.attempt,
    workspaceId: r.workspaceId,
    createdAt: r.createdAt,
    endpoint: r.endpoint,
    model: r.model,
    modelCanonical: r.modelCanonical,
    provider: r.provider,
    providerModelId: r.providerModelId,
    apiKeyId: r.apiKeyId,
    apiKeySource: r.apiKeySource,
    statusCode: r.statusCode,
    success: r.success,
    isFinalAttempt: r.isFinalAttempt,
    latencyMs: Math.round(r.latencyMs),
    ttftMs: r.ttftMs === null ? null : Math.round(r.ttftMs),
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    cachedTokens: r.cachedTokens,
    reasoningTokens: r.reasoningTokens,
    costMicrodollars: r.costMicrodollars,
    routingStrategy: r.routingStrategy,
    errorCode: r.errorCode,
    traceId: r.traceId,
    userId: r.userId,
    tags: r.tags === null ? null : JSON.stringify(r.tags),
    customFields: r.customFields === null ? null : JSON.stringify(r.customFields),
    usageEstimated: r.usageEstimated ?? false,
    routingDecision: r.routingDecision ? decisionJson(r.routingDecision) : null,
  };
}

/** The stored routing_decision: routing_metadata's names and rounding. */
function decisionJson(d: RoutingDecision): string {
  return JSON.stringify({
    ttft_ms_estimate: Math.round(d.ttftMsEstimate),
    throughput_tps_estimate: Math.round(d.throughputTpsEstimate * 10) / 10,
    exploration: d.exploration,
    sticky: d.sticky,
    warnings: d.warnings.map((w) => ({ type: w.type, code: w.code, message: w.message })),
  });
}

/**
 * The ledger row ID of a call's credit debit: derived from the final record's server-generated ID, so a
 * retried batch cannot debit twice (and a client reusing an X-Request-ID cannot dodge a debit).
 */
export function debitLedgerId(recordId: string): string {
  return `debit:${recordId}`;
}

/** Does this record produce a credit debit? (docs/contract.md "Rate limits, credits and budgets": BYOK attempts are never charged.) */
export function chargesCredits(r: Pick<RequestRecord, "isFinalAttempt" | "chargeCredits" | "costMicrodollars">): boolean {
  return r.isFinalAttempt && r.chargeCredits && r.costMicrodollars > 0;
}

/** UTC calendar day of an epoch-ms time, "YYYY-MM-DD": the usage_rollups day key. */
export function utcDay(ms: number): string {
  // Every record of a batch falls on the same day or two: format each day once.
  const n = Math.floor(ms / 86_400_000);
  if (n !== lastDay.n) lastDay = { n, text: new Date(n * 86_400_000).toISOString().slice(0, 10) };
  return lastDay.text;
}
let lastDay = { n: NaN, text: "" };
