// A management test session: an in-process server on SQLite or Postgres whose catalog has a BYOK
// provider "alpha" pointing at the local mock, plus helpers that record every response body (for the
// canary assertions) and create keys with chosen scopes.
import { startServer, type InProcessServer } from "../../support/server";
import { startMockProvider, type MockProvider } from "./mock-provider";
import { generateApiKey } from "../../../src/auth/key-format";
import { SCOPES, type Scope } from "../../../src/auth/scopes";
import { asc, eq } from "drizzle-orm";
import type { auditEvents, requestRecords, usageRollups } from "../../../src/platform/db/schema-sqlite";
import { randomBase62 } from "../../../src/platform/ids";

export interface Res {
  status: number;
  json: any;
  text: string;
  headers: Headers;
}

export interface CallOpts {
  body?: unknown;
  key?: string | null;
  headers?: Record<string, string>;
}

export interface Session {
  s: InProcessServer;
  mock: MockProvider;
  ws: string;
  adminKey: string;
  /** Every response body (text) seen by call(), for the canary test. */
  bodies: string[];
  /** `/v1/workspaces/<ws><suffix>` */
  w(suffix?: string): string;
  call(method: string, path: string, opts?: CallOpts): Promise<Res>;
  keyWith(scopes: readonly Scope[], workspaceId?: string): Promise<string>;
  otherWorkspace(): Promise<{ ws: string; key: string }>;
  /** Audit rows of the session's workspace (or the given one), oldest first. */
  auditRows(workspaceId?: string): Promise<AuditRow[]>;
  insertRecords(rows: Partial<RequestRow>[]): Promise<void>;
  insertRollups(rows: Partial<RollupRow>[]): Promise<void>;
  stop(): Promise<void>;
}

export type AuditRow = typeof auditEvents.$inferSelect;
type RequestRow = typeof requestRecords.$inferInsert;
type RollupRow = typeof usageRollups.$inferInsert;

/** A request record with plausible defaults; tests override what they look at. */
export function record(ws: string, over: Partial<RequestRow> = {}): RequestRow {
  return {
    id: `rec_${randomBase62(16)}`,
    requestId: `req_${randomBase62(12)}`,
    attempt: 1,
    workspaceId: ws,
    createdAt: Date.now(),
    endpoint: "chat_completions",
    model: "acme/chat-small",
    modelCanonical: "acme/chat-small",
    provider: "alpha",
    providerModelId: "chat-small-2026",
    apiKeyId: null,
    apiKeySource: "platform",
    statusCode: 200,
    success: true,
    isFinalAttempt: true,
    latencyMs: 120,
    ttftMs: 40,
    inputTokens: 10,
    outputTokens: 20,
    cachedTokens: 0,
    reasoningTokens: 0,
    costMicrodollars: 1000,
    routingStrategy: "cost-focus",
    errorCode: null,
    traceId: null,
    userId: null,
    tags: null,
    customFields: null,
    ...over,
  };
}

export interface SessionOptions {
  shared?: boolean;
  /** Full admin key to use (the canary test plants a marker in it). */
  adminKey?: string;
  platformKey?: string;
  /** The config file's `byok_validation_timeout_ms` (300 unless given). */
  validationTimeoutMs?: number;
}

export async function openSession(kind: "sqlite" | "postgres", opts: SessionOptions = {}): Promise<Session> {
  const mock = startMockProvider();
  const adminKey = opts.adminKey ?? generateApiKey();
  const env: Record<string, string> = { SWITCHYARD_ADMIN_KEY: adminKey };
  if (opts.shared) env.REDIS_URL = "redis://127.0.0.1:6379/0";
  const s = await startServer({
    db: kind,
    env,
    configFile: {
      providers: {
        alpha: {
          adapter: "openai",
          base_url: mock.baseUrl,
          api_key: opts.platformKey ?? "sk-platform-0123456789",
          display_name: "Alpha Cloud",
          byok: true,
          tiers: [
            { name: "free", rpm: 20, is_default: true },
            { name: "tier-1", rpm: 500 },
          ],
        },
        beta: { adapter: "openai", base_url: mock.baseUrl, display_name: "Beta", byok: false },
      },
      // A provider that never answers gets its verdict quickly (the BYOK timeout tests).
      byok_validation_timeout_ms: opts.validationTimeoutMs ?? 300,
    },
  });
  const bodies: string[] = [];
  const call = async (method: string, path: string, o: CallOpts = {}): Promise<Res> => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const key = o.key === undefined ? adminKey : o.key;
    const r = await s.fetch(path, {
      method,
      key,
      headers,
      body: o.body === undefined ? undefined : typeof o.body === "string" ? o.body : JSON.stringify(o.body),
    });
    const text = await r.text();
    bodies.push(text);
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: r.status, json, text, headers: r.headers };
  };
  const keyWith = async (scopes: readonly Scope[], workspaceId = s.workspaceId) => {
    const { key } = await s.deps.repos.apiKeys.create({ workspaceId, name: `k-${scopes.join("+") || "none"}`, scopes: [...scopes] });
    return key;
  };
  return {
    s,
    mock,
    ws: s.workspaceId,
    adminKey,
    bodies,
    w: (suffix = "") => `/v1/workspaces/${s.workspaceId}${suffix}`,
    call,
    keyWith,
    async otherWorkspace() {
      const other = await s.deps.repos.workspaces.create("Other");
      const key = await keyWith(SCOPES, other.id);
      return { ws: other.id, key };
    },
    async auditRows(workspaceId = s.workspaceId) {
      const t = s.deps.db.t.auditEvents;
      return s.deps.db.orm.select().from(t).where(eq(t.workspaceId, workspaceId)).orderBy(asc(t.createdAt), asc(t.id));
    },
    async insertRecords(rows) {
      await s.deps.db.orm.insert(s.deps.db.t.requestRecords).values(rows.map((r) => record(s.workspaceId, r)));
    },
    async insertRollups(rows) {
      const full = rows.map((r) => ({
        workspaceId: s.workspaceId,
        day: "2026-01-01",
        model: "acme/chat-small",
        provider: "alpha",
        apiKeyId: "",
        requests: 1,
        errors: 0,
        inputTokens: 10,
        outputTokens: 20,
        costMicrodollars: 100,
        ...r,
      }));
      await s.deps.db.orm.insert(s.deps.db.t.usageRollups).values(full);
    },
    async stop() {
      await s.stop();
      await mock.stop();
    },
  };
}
