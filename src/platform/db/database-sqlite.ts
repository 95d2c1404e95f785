// The SQLite dialect of the Database facade (bun:sqlite, WAL, one connection).
import { Database as BunSqlite } from "bun:sqlite";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { getTableColumns, getTableName } from "drizzle-orm";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import * as sqliteSchema from "./schema-sqlite";
import { sqliteMigrations } from "./migrations.generated";
import { MIGRATIONS_TABLE, pendingTags, type Database, type TableName } from "./database";

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

export function openSqlite(path: string): Database {
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
    return new Set(
      raw
        .query(`SELECT tag FROM ${MIGRATIONS_TABLE}`)
        .all()
        .map((r) => (r as { tag: string }).tag),
    );
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
    pendingMigrations: async () => pendingTags(sqliteMigrations, applied()),
    close: async () => raw.close(),
  };
}
