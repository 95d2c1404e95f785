// One facade over both dialects. The ORM handle is typed as the SQLite Drizzle database; the Postgres
// one is built from tables with identical names and JS types, so the query-builder calls the repository
// layer makes (select/insert/update/delete, onConflict…, returning) behave the same on both.
// Nothing outside platform/db and the repositories sees which dialect is in use.
import { Database as BunSqlite } from "bun:sqlite";
import { drizzle as drizzleSqlite, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import { getTableColumns, getTableName } from "drizzle-orm";
import postgres from "postgres";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import * as sqliteSchema from "./schema-sqlite";
import * as pgSchema from "./schema-pg";
import { sqliteMigrations, postgresMigrations, type EmbeddedMigration } from "./migrations.generated";

export type Tables = typeof sqliteSchema;
export type Orm = BunSQLiteDatabase<Tables>;
export type TableName = keyof Tables;
type Row<K extends TableName> = Tables[K]["$inferInsert"];

export interface Database {
  readonly dialect: "sqlite" | "postgres";
  readonly orm: Orm;
  readonly t: Tables;
  /** Runs fn in one transaction. On SQLite, transactions are serialised in-process (one connection). */
  tx<T>(fn: (orm: Orm) => Promise<T>): Promise<T>;
  /**
   * Bulk insert that skips rows conflicting on `conflict` and returns the `returning` columns of the rows
   * really inserted; inside `tx`, with its handle. The record writer's hot path: on SQLite one cached
   * prepared statement per row (Drizzle's rendering and placeholder filling cost far more than SQLite's
   * own work); on Postgres one multi-row statement per chunk.
   */
  insertIgnoring<K extends TableName>(orm: Orm, table: K, rows: readonly Row<K>[], conflict: readonly (keyof Row<K> & string)[], returning: readonly (keyof Row<K> & string)[]): Promise<Record<string, unknown>[]>;
  ping(): Promise<void>;
  migrate(): Promise<void>;
  pendingMigrations(): Promise<string[]>;
  close(): Promise<void>;
}

export class DatabaseUnavailable extends Error {}

/** A tiny FIFO mutex: SQLite has one connection, so transactions must not interleave across awaits. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

const MIGRATIONS_TABLE = "switchyard_migrations";

export function openDatabase(url: string): Database {
  return url.startsWith("sqlite:") ? openSqlite(url.slice("sqlite:".length)) : openPostgres(url);
}

function openSqlite(path: string): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const raw = new BunSqlite(path, { create: true, strict: true });
  // bun:sqlite is synchronous: a busy wait blocks the event loop. Keep it short; writers that meet a
  // lock (the CLI, another instance) fail fast and the record writer retries with backoff.
  raw.run("PRAGMA busy_timeout = 250");
  raw.run("PRAGMA journal_mode = WAL");
  raw.run("PRAGMA synchronous = NORMAL");
  raw.run("PRAGMA wal_autocheckpoint = 10000");
  const orm = drizzleSqlite(raw, { schema: sqliteSchema });
  const lock = new Mutex();
  const applied = (): Set<string> => {
    raw.run(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`);
    return new Set(raw.query(`SELECT tag FROM ${MIGRATIONS_TABLE}`).all().map((r) => (r as { tag: string }).tag));
  };
  const statements = new Map<string, { stmt: ReturnType<BunSqlite["query"]>; keys: string[] }>();
  const statementFor = (table: TableName, conflict: readonly string[], returning: readonly string[]) => {
    const id = `${table}|${conflict.join(",")}|${returning.join(",")}`;
    let s = statements.get(id);
    if (!s) {
      const cols = getTableColumns(sqliteSchema[table]) as Record<string, { name: string }>;
      const keys = Object.keys(cols);
      const q = (k: string) => `"${cols[k]!.name}"`;
      const text =
        `INSERT INTO "${getTableName(sqliteSchema[table])}" (${keys.map(q).join(", ")}) VALUES (${keys.map(() => "?").join(", ")}) ` +
        `ON CONFLICT (${conflict.map(q).join(", ")}) DO NOTHING` +
        (returning.length ? ` RETURNING ${returning.map((k) => `${q(k)} AS "${k}"`).join(", ")}` : "");
      s = { stmt: raw.query(text), keys };
      statements.set(id, s);
    }
    return s;
  };
  return {
    dialect: "sqlite",
    orm,
    t: sqliteSchema,
    insertIgnoring: async (_orm, table, rows, conflict, returning) => {
      const { stmt, keys } = statementFor(table, conflict, returning);
      const out: Record<string, unknown>[] = [];
      const values: unknown[] = new Array(keys.length);
      for (const row of rows) {
        const r = row as Record<string, unknown>;
        for (let i = 0; i < keys.length; i++) values[i] = r[keys[i]!] ?? null;
        if (returning.length) {
          const got = stmt.get(...(values as never[])) as Record<string, unknown> | null;
          if (got) out.push(got);
        } else stmt.run(...(values as never[]));
      }
      return out;
    },
    tx: (fn) =>
      lock.run(async () => {
        raw.run("BEGIN IMMEDIATE");
        try {
          const out = await fn(orm);
          raw.run("COMMIT");
          return out;
        } catch (err) {
          raw.run("ROLLBACK");
          throw err;
        }
      }),
    ping: async () => {
      raw.query("SELECT 1").get();
    },
    migrate: () =>
      lock.run(async () => {
        raw.run("BEGIN IMMEDIATE");
        try {
          const done = applied();
          for (const m of sqliteMigrations) {
            if (done.has(m.tag)) continue;
            for (const s of m.statements) raw.run(s);
            raw.run(`INSERT INTO ${MIGRATIONS_TABLE} (tag, applied_at) VALUES (?, ?)`, [m.tag, Date.now()]);
          }
          raw.run("COMMIT");
        } catch (err) {
          raw.run("ROLLBACK");
          throw err;
        }
      }),
    pendingMigrations: async () => pending(sqliteMigrations, applied()),
    close: async () => raw.close(),
  };
}

/** The slice of Drizzle's Postgres insert builder insertIgnoring uses (typed loosely: one code path for every table). */
interface PgInsertable {
  insert(t: unknown): {
    values(rows: readonly unknown[]): PromiseLike<unknown> & {
      onConflictDoNothing(o: { target: unknown[] }): PromiseLike<unknown> & { returning(cols: Record<string, unknown>): Promise<Record<string, unknown>[]> };
    };
  };
}

function pending(all: EmbeddedMigration[], done: Set<string>): string[] {
  return all.filter((m) => !done.has(m.tag)).map((m) => m.tag);
}

/** `postgres://…?schema=NAME` puts every table in that schema (created if missing): isolated test runs. */
function openPostgres(url: string): Database {
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
  return {
    dialect: "postgres",
    orm,
    t: pgSchema as unknown as Tables,
    insertIgnoring: async (tx, table, rows, conflict, returning) => {
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
    },
    tx: (fn) => (orm as unknown as { transaction: (f: (tx: Orm) => Promise<unknown>) => Promise<unknown> }).transaction(fn) as never,
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
      return pending(postgresMigrations, await applied(client));
    },
    close: async () => {
      await client.end({ timeout: 5 });
    },
  };
}
