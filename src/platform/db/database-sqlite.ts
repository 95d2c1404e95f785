// The SQLite dialect of the Database facade (bun:sqlite, WAL, one connection).
import { Database as BunSqlite } from "bun:sqlite";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { getTableColumns, getTableName } from "drizzle-orm";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import * as sqliteSchema from "./schema-sqlite";
import { sqliteMigrations } from "./migrations.generated";
import { sqliteLedgerReader } from "./ledger-reader-sqlite";
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
  // No RETURNING: run() reports whether the row went in (changes), and the returned columns are the
  // row's own values; a RETURNING row costs a result row per insert (about a third of the insert).
  const statements = new Map<string, { stmt: ReturnType<BunSqlite["query"]>; keys: string[] }>();
  // `conflict` empty: a plain INSERT. `add` empty: ON CONFLICT DO NOTHING; otherwise DO UPDATE adding
  // those columns of the new row.
  const statementFor = (table: TableName, conflict: readonly string[], add: readonly string[] = []) => {
    const id = `${table}|${conflict.join(",")}|${add.join(",")}`;
    let s = statements.get(id);
    if (!s) {
      const cols = getTableColumns(sqliteSchema[table]) as Record<string, { name: string }>;
      const keys = Object.keys(cols);
      const q = (k: string) => `"${cols[k]!.name}"`;
      const onConflict = add.length ? `DO UPDATE SET ${add.map((k) => `${q(k)} = ${q(k)} + excluded.${q(k)}`).join(", ")}` : "DO NOTHING";
      const text =
        `INSERT INTO "${getTableName(sqliteSchema[table])}" (${keys.map(q).join(", ")}) VALUES (${keys.map(() => "?").join(", ")})` +
        (conflict.length ? ` ON CONFLICT (${conflict.map(q).join(", ")}) ${onConflict}` : "");
      s = { stmt: raw.query(text), keys };
      statements.set(id, s);
    }
    return s;
  };
  // The values go to run() as one array (bun:sqlite binds an array argument as the parameter list): a
  // spread of 28 arguments made run() gather them into a fresh array per row again.
  const bind = (keys: string[], values: unknown[], row: unknown) => {
    const r = row as Record<string, unknown>;
    for (let i = 0; i < keys.length; i++) values[i] = r[keys[i]!] ?? null;
    return values as never;
  };
  return {
    dialect: "sqlite",
    orm,
    t: sqliteSchema,
    insertIgnoring: async (_orm, table, rows, conflict, returning) => {
      const { stmt, keys } = statementFor(table, conflict);
      const out: Record<string, unknown>[] = [];
      const values: unknown[] = new Array(keys.length);
      for (const row of rows) {
        const r = row as Record<string, unknown>;
        if (stmt.run(bind(keys, values, row)).changes === 0 || !returning.length) continue;
        const got: Record<string, unknown> = {};
        for (const k of returning) got[k] = r[k];
        out.push(got);
      }
      return out;
    },
    insertRecords: async (_orm, rows) => {
      const { stmt, keys } = statementFor("requestRecords", []);
      const values: unknown[] = new Array(keys.length);
      for (const row of rows) stmt.run(bind(keys, values, row));
      return rows.map((r) => r.id);
    },
    upsertAdding: async (_orm, table, rows, conflict, add) => {
      const { stmt, keys } = statementFor(table, conflict, add);
      const values: unknown[] = new Array(keys.length);
      for (const row of rows) stmt.run(bind(keys, values, row));
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
    ledgerReader: () => sqliteLedgerReader(raw, (fn) => lock.run(fn)),
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
