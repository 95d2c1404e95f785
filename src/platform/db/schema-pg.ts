// Postgres tables: the twin of schema-sqlite.ts, same names and JS types (generated from it by sed at first;
// keep the two in step). Integers that can pass 2^31 are bigint in number mode.
import { sql } from "drizzle-orm";
import {
  pgTable,
  text,
  integer,
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  primaryKey,
  index,
  uniqueIndex,
  customType,
} from "drizzle-orm/pg-core";

/** Transaction IDs as text on the JS side (64-bit; only ever compared in SQL). */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => "xid8" });
const ms = (name: string) => bigint(name, { mode: "number" });
const bool = (name: string) => boolean(name);

export const workspaces = pgTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  isDefault: bool("is_default").notNull().default(false),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    name: text("name").notNull(),
    keyHash: text("key_hash").notNull(),
    keyPrefix: text("key_prefix").notNull(),
    scopes: text("scopes").notNull(),
    playground: bool("playground").notNull().default(false),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
    expiresAt: ms("expires_at"),
    lastUsedAt: ms("last_used_at"),
    revokedAt: ms("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash_idx").on(t.keyHash), index("api_keys_ws_idx").on(t.workspaceId)],
);

export const routingDefaults = pgTable("routing_defaults", {
  workspaceId: text("workspace_id").primaryKey(),
  optimize: text("optimize"),
  dataPolicy: text("data_policy"),
  allowFallbacks: bool("allow_fallbacks"),
  maxFallbackAttempts: integer("max_fallback_attempts"),
  providers: text("providers"),
  excludeProviders: text("exclude_providers"),
  // The adaptive router's options (issue 54): rates and floors are plain figures, not money.
  minThroughputTps: doublePrecision("min_throughput_tps"),
  ttftPercentile: text("ttft_percentile"),
  throughputPercentile: text("throughput_percentile"),
  minSuccessRate: doublePrecision("min_success_rate"),
  prefer: text("prefer"),
  onlyByok: bool("only_byok"),
  onlyPlatform: bool("only_platform"),
  requireParameters: bool("require_parameters"),
  updatedAt: ms("updated_at").notNull(),
});

export const budgets = pgTable(
  "budgets",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    scope: text("scope").notNull(),
    /** '' for workspace scope, so that the unique index also covers it. */
    scopeId: text("scope_id").notNull(),
    period: text("period").notNull(),
    limitMicrodollars: ms("limit_microdollars").notNull(),
    enforce: bool("enforce").notNull(),
    includeByok: bool("include_byok").notNull(),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [uniqueIndex("budgets_scope_period_idx").on(t.workspaceId, t.scope, t.scopeId, t.period)],
);

export const byokKeys = pgTable(
  "byok_keys",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    provider: text("provider").notNull(),
    name: text("name").notNull(),
    keyPrefix: text("key_prefix").notNull(),
    ciphertext: text("ciphertext").notNull(),
    nonce: text("nonce").notNull(),
    masterKeyId: text("master_key_id").notNull(),
    isDefault: bool("is_default").notNull(),
    disabled: bool("disabled").notNull(),
    validationStatus: text("validation_status").notNull(),
    accountTier: text("account_tier"),
    accountTierSource: text("account_tier_source"),
    lastValidatedAt: ms("last_validated_at"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("byok_ws_provider_idx").on(t.workspaceId, t.provider)],
);

export const requestRecords = pgTable(
  "request_records",
  {
    /** Insertion order (the SQLite table's rowid; the same column here keeps the two schemas alike). */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    /** Server-generated per attempt: the key. A batch whose commit is in doubt (the connection broke
     *  during COMMIT) is retried, and its records are inserted only where their ids are new. request_id
     *  is the client-visible X-Request-ID, which a client may choose and reuse, so it cannot be unique. */
    id: text("id").primaryKey(),
    requestId: text("request_id").notNull(),
    attempt: integer("attempt").notNull(),
    workspaceId: text("workspace_id").notNull(),
    createdAt: ms("created_at").notNull(),
    endpoint: text("endpoint").notNull(),
    model: text("model"),
    modelCanonical: text("model_canonical"),
    provider: text("provider"),
    providerModelId: text("provider_model_id"),
    apiKeyId: text("api_key_id"),
    apiKeySource: text("api_key_source"),
    statusCode: integer("status_code").notNull(),
    success: bool("success").notNull(),
    isFinalAttempt: bool("is_final_attempt").notNull(),
    latencyMs: integer("latency_ms").notNull(),
    ttftMs: integer("ttft_ms"),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    cachedTokens: integer("cached_tokens").notNull(),
    reasoningTokens: integer("reasoning_tokens").notNull(),
    costMicrodollars: ms("cost_microdollars").notNull(),
    routingStrategy: text("routing_strategy"),
    errorCode: text("error_code"),
    traceId: text("trace_id"),
    userId: text("user_id"),
    tags: text("tags"),
    customFields: text("custom_fields"),
    /** True when the tokens (and so the cost) are the gateway's estimate, not the upstream's usage report. */
    usageEstimated: bool("usage_estimated").notNull().default(false),
    /** What the router knew when it chose this attempt's route (JSON: estimates, exploration, sticky, warnings); null on older rows. */
    routingDecision: text("routing_decision"),
  },
  (t) => [index("rr_ws_created_idx").on(t.workspaceId, t.createdAt), index("rr_ws_request_idx").on(t.workspaceId, t.requestId)],
);

/**
 * Request records the database refused (e.g. a NUL byte Postgres text cannot hold), set aside by the
 * record writer so that the rest of their batch is written. Never retried; kept for operators.
 */
export const deadLetterRecords = pgTable(
  "dead_letter_records",
  {
    /** The record's server-generated id: dead-lettering the same record twice keeps one row. */
    id: text("id").primaryKey(),
    requestId: text("request_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    /** The whole record as JSON text, with NUL escaped as the text \u0000 so any database can hold it. */
    record: text("record").notNull(),
    /** The database's error message. */
    error: text("error").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("dlr_ws_created_idx").on(t.workspaceId, t.createdAt)],
);

export const usageRollups = pgTable(
  "usage_rollups",
  {
    workspaceId: text("workspace_id").notNull(),
    day: text("day").notNull(),
    model: text("model").notNull(),
    provider: text("provider").notNull(),
    apiKeyId: text("api_key_id").notNull(),
    requests: integer("requests").notNull(),
    errors: integer("errors").notNull(),
    inputTokens: ms("input_tokens").notNull(),
    outputTokens: ms("output_tokens").notNull(),
    costMicrodollars: ms("cost_microdollars").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.day, t.model, t.provider, t.apiKeyId] })],
);

export const creditLedger = pgTable(
  "credit_ledger",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    amountMicrodollars: ms("amount_microdollars").notNull(),
    reason: text("reason").notNull(),
    requestId: text("request_id"),
    createdAt: ms("created_at").notNull(),
    // Postgres only, never written by the app: the inserting transaction's ID. The credit poller reads
    // the rows at or above the oldest transaction still running (platform/db/ledger-reader-pg.ts), a
    // cursor in commit order that sequence values and timestamps cannot give.
    xid: xid8("xid")
      .notNull()
      .default(sql`pg_current_xact_id()`),
  },
  (t) => [index("ledger_ws_idx").on(t.workspaceId, t.createdAt), index("ledger_xid_idx").on(t.xid)],
);

export const idempotencyRecords = pgTable(
  "idempotency_records",
  {
    workspaceId: text("workspace_id").notNull(),
    route: text("route").notNull(),
    key: text("key").notNull(),
    bodyHash: text("body_hash").notNull(),
    state: text("state").notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: ms("created_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.route, t.key] })],
);

export const auditEvents = pgTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    type: text("type").notNull(),
    actorApiKeyId: text("actor_api_key_id"),
    targetId: text("target_id"),
    data: text("data").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("audit_ws_idx").on(t.workspaceId, t.createdAt)],
);

export const members = pgTable(
  "members",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    email: text("email").notNull(),
    role: text("role").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [uniqueIndex("members_ws_email_idx").on(t.workspaceId, t.email)],
);

export const invites = pgTable(
  "invites",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    email: text("email").notNull(),
    role: text("role").notNull(),
    tokenHash: text("token_hash").notNull(),
    expiresAt: ms("expires_at").notNull(),
    acceptedAt: ms("accepted_at"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [uniqueIndex("invites_token_idx").on(t.tokenHash)],
);

/**
 * Responses the gateway keeps for `previous_response_id`, GET and DELETE /v1/responses/{id}
 * (inference/responses/store/). Keyed by workspace and ID: another workspace's ID is never found.
 */
export const storedResponses = pgTable(
  "stored_responses",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    /** The full input the model saw (earlier turns resolved), a JSON array of Responses items. */
    input: text("input").notNull(),
    /** The response object as the client received it, JSON text. */
    response: text("response").notNull(),
    /** Bytes of input + response (UTF-8), checked against `responses.store_max_bytes`. */
    bytes: integer("bytes").notNull(),
    createdAt: ms("created_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.id] }), index("stored_responses_expires_idx").on(t.expiresAt)],
);
