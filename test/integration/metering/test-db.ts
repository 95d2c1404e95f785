// Databases for the metering tests: the same test body runs on SQLite and on Postgres (a schema of its
// own per database, dropped afterwards).
import postgres from "postgres";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database as BunSqlite } from "bun:sqlite";
import { MIGRATIONS_TABLE, openDatabase, type Database } from "../../../src/platform/db/database";
import { sqliteMigrations } from "../../../src/platform/db/migrations.generated";
import type { RequestRecord } from "../../../src/metering/request-record";

export const PG_URL = "postgres://postgres@127.0.0.1:5432/test";
export type Dialect = "sqlite" | "postgres";
export const DIALECTS: Dialect[] = ["sqlite", "postgres"];

export interface TestDb {
  db: Database;
  url: string;
  /** Another Database on the same data (another process, e.g. the CLI). */
  openAnother(): Promise<Database>;
  cleanup(): Promise<void>;
}

export async function openTestDb(dialect: Dialect): Promise<TestDb> {
  const others: Database[] = [];
  let url: string;
  let dropAll: () => Promise<void>;
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "sy-metering-"));
    url = `sqlite:${join(dir, "test.db")}`;
    dropAll = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const schema = `t_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
    url = `${PG_URL}?schema=${schema}`;
    dropAll = async () => {
      const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
      await admin.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    };
  }
  const db = await openDatabase(url);
  await db.migrate();
  return {
    db,
    url,
    openAnother: async () => {
      const other = await openDatabase(url);
      others.push(other);
      return other;
    },
    cleanup: async () => {
      for (const o of others) await o.close().catch(() => {});
      await db.close().catch(() => {});
      await dropAll();
    },
  };
}

let seq = 0;
export function makeRecord(over: Partial<RequestRecord> = {}): RequestRecord {
  seq += 1;
  return {
    recordId: crypto.randomUUID(),
    requestId: `req_${seq}_${crypto.randomUUID().slice(0, 8)}`,
    attempt: 1,
    workspaceId: "ws1",
    createdAt: Date.UTC(2026, 2, 2, 12, 0, 0),
    endpoint: "chat_completions",
    model: "chat-small",
    modelCanonical: "acme/chat-small",
    provider: "alpha",
    providerModelId: "chat-small-2026",
    apiKeyId: "key1",
    apiKeySource: "platform",
    statusCode: 200,
    success: true,
    isFinalAttempt: true,
    latencyMs: 120,
    ttftMs: 40,
    inputTokens: 100,
    outputTokens: 50,
    cachedTokens: 0,
    reasoningTokens: 0,
    costMicrodollars: 125,
    routingStrategy: "cost-focus",
    errorCode: null,
    traceId: null,
    userId: null,
    tags: ["a"],
    customFields: { k: "v" },
    chargeCredits: true,
    ...over,
  };
}

/** Polls until check() is true or the deadline passes; returns the last value of check(). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 3000, stepMs = 10): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await Bun.sleep(stepMs);
  }
}

/**
 * A SQLite file as an earlier release left it: the first `applied` migrations run and recorded, nothing
 * else. For the upgrade tests; `cleanup` removes its folder.
 */
export function sqliteAtMigration(applied: number): { path: string; raw: BunSqlite; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "sy-upgrade-"));
  const path = join(dir, "old.db");
  const raw = new BunSqlite(path, { create: true });
  raw.run(`CREATE TABLE ${MIGRATIONS_TABLE} (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`);
  for (const m of sqliteMigrations.slice(0, applied)) {
    for (const s of m.statements) raw.run(s);
    raw.run(`INSERT INTO ${MIGRATIONS_TABLE} (tag, applied_at) VALUES (?, ?)`, [m.tag, Date.now()]);
  }
  return { path, raw, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
