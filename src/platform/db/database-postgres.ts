// The Postgres dialect of the Database facade (postgres.js through Drizzle); its bulk writes are pg-inserts.ts.
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as pgSchema from "./schema-pg";
import { postgresMigrations } from "./migrations.generated";
import { pgLedgerReader } from "./ledger-reader-pg";
import { MIGRATIONS_TABLE, pendingTags, type Database, type Orm, type Tables } from "./database";
import { pgInserts } from "./pg-inserts";

/** `postgres://…?schema=NAME` puts every table in that schema (created if missing): isolated test runs. */
export function openPostgres(url: string): Database {
  const u = new URL(url);
  const schema = u.searchParams.get("schema");
  u.searchParams.delete("schema");
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`DATABASE_URL schema must match [a-z_][a-z0-9_]*`);
  const client = postgres(u.toString(), {
    max: 10,
    onnotice: () => {},
    connect_timeout: 5,
    // postgres.js waits up to 20 s between reconnects after repeated failures (its default), and queued
    // queries wait with it: records written only that long after the database came back. At most ~1 s.
    backoff: (retries: number) => (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** retries, 1),
    connection: schema ? { search_path: schema } : {},
  });
  const orm = drizzlePg(client, { schema: pgSchema }) as unknown as Orm;
  const ensureSchema = async () => {
    if (schema) await client.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  };
  const applied = async (sql: postgres.Sql | postgres.TransactionSql) => {
    await sql.unsafe(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (tag TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`);
    const rows = await sql.unsafe(`SELECT tag FROM ${MIGRATIONS_TABLE}`);
    return new Set(rows.map((r) => r.tag as string));
  };
  return {
    dialect: "postgres",
    orm,
    t: pgSchema as unknown as Tables,
    ...pgInserts,
    tx: (fn) => (orm as unknown as { transaction: (f: (tx: Orm) => Promise<unknown>) => Promise<unknown> }).transaction(fn) as never,
    ledgerReader: () => pgLedgerReader(client),
    dataVersion: () => null,
    ping: async () => {
      await client`SELECT 1`;
    },
    migrate: async () => {
      await ensureSchema();
      await client.begin(async (sql) => {
        // Several instances may start together: one migrates, the others wait for it.
        await sql`SELECT pg_advisory_xact_lock(7715001)`;
        const done = await applied(sql);
        for (const m of postgresMigrations) {
          if (done.has(m.tag)) continue;
          for (const s of m.statements) await sql.unsafe(s);
          await sql.unsafe(`INSERT INTO ${MIGRATIONS_TABLE} (tag, applied_at) VALUES ($1, $2)`, [m.tag, Date.now()]);
        }
      });
    },
    pendingMigrations: async () => {
      await ensureSchema();
      return pendingTags(postgresMigrations, await applied(client));
    },
    close: async () => {
      await client.end({ timeout: 5 });
    },
  };
}
