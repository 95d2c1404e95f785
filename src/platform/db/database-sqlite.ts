// The SQLite dialect of the Database facade (bun:sqlite, WAL, one connection); its bulk writes are sqlite-inserts.ts.
import { Database as BunSqlite } from "bun:sqlite";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import * as sqliteSchema from "./schema-sqlite";
import { sqliteMigrations } from "./migrations.generated";
import { sqliteLedgerReader } from "./ledger-reader-sqlite";
import { MIGRATIONS_TABLE, pendingTags, type Database } from "./database";
import { sqliteInserts } from "./sqlite-inserts";

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
  // SQLite's own default (1,000 pages, ~4 MB of WAL), set here so that no one raises it again: the
  // checkpoint runs inside a commit, on the event loop, and a larger WAL stalled it (docs/tuning.md).
  raw.run("PRAGMA wal_autocheckpoint = 1000");
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
  return {
    dialect: "sqlite",
    orm,
    t: sqliteSchema,
    ...sqliteInserts(raw),
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
    dataVersion: () => (raw.query("PRAGMA data_version").get() as { data_version: number }).data_version,
    migrate: () => lock.run(async () => migrateSqlite(raw, applied)),
    pendingMigrations: async () => pendingTags(sqliteMigrations, applied()),
    close: async () => raw.close(),
  };
}

/** Applies the embedded migrations not yet applied, all in one transaction. */
function migrateSqlite(raw: BunSqlite, applied: () => Set<string>): void {
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
}
