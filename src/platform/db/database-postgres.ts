// The Postgres dialect of the Database facade (postgres.js through Drizzle).
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import { getTableColumns, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import postgres from "postgres";
import * as pgSchema from "./schema-pg";
import { postgresMigrations } from "./migrations.generated";
import { pgLedgerReader } from "./ledger-reader-pg";
import { MIGRATIONS_TABLE, pendingTags, type Database, type Orm, type Tables } from "./database";

/** The slice of Drizzle's Postgres insert builder insertIgnoring uses (typed loosely: one code path for every table). */
interface PgInsertable {
  insert(t: unknown): {
    values(rows: readonly unknown[]): PromiseLike<unknown> & {
      onConflictDoNothing(o: {
        target: unknown[];
      }): PromiseLike<unknown> & { returning(cols: Record<string, unknown>): Promise<Record<string, unknown>[]> };
    };
  };
}

/** The slice of Drizzle's Postgres insert builder upsertAdding uses. */
interface PgUpsertable {
  insert(t: unknown): {
    values(rows: readonly unknown[]): { onConflictDoUpdate(o: { target: unknown[]; set: Record<string, SQL> }): PromiseLike<unknown> };
  };
}

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
  const insertIgnoring: Database["insertIgnoring"] = async (tx, table, rows, conflict, returning) => {
    const t = pgSchema[table] as unknown as Tables[typeof table];
    const cols = getTableColumns(t) as Record<string, unknown>;
    const out: Record<string, unknown>[] = [];
    // 400 rows × ≤ 30 columns stays far below Postgres' 65,535 parameters per statement.
    for (let i = 0; i < rows.length; i += 400) {
      const q = (tx as unknown as PgInsertable)
        .insert(t)
        .values(rows.slice(i, i + 400))
        .onConflictDoNothing({ target: conflict.map((k) => cols[k]) });
      if (returning.length) out.push(...(await q.returning(Object.fromEntries(returning.map((k) => [k, cols[k]])))));
      else await q;
    }
    return out;
  };
  return {
    dialect: "postgres",
    orm,
    t: pgSchema as unknown as Tables,
    insertIgnoring,
    insertRecords: async (tx, rows) => (await insertIgnoring(tx, "requestRecords", rows, ["id"], ["id"])).map((r) => r.id as string),
    upsertAdding: async (tx, table, rows, conflict, add) => {
      const t = pgSchema[table] as unknown as Tables[typeof table];
      const cols = getTableColumns(t) as unknown as Record<string, PgColumn>;
      const set = Object.fromEntries(add.map((k) => [k, sql`${cols[k]} + excluded.${sql.identifier(cols[k]!.name)}`]));
      for (let i = 0; i < rows.length; i += 400) {
        await (tx as unknown as PgUpsertable)
          .insert(t)
          .values(rows.slice(i, i + 400))
          .onConflictDoUpdate({ target: conflict.map((k) => cols[k]), set });
      }
    },
    tx: (fn) => (orm as unknown as { transaction: (f: (tx: Orm) => Promise<unknown>) => Promise<unknown> }).transaction(fn) as never,
    ledgerReader: () => pgLedgerReader(client),
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
