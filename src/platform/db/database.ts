// One facade over both dialects. The ORM handle is typed as the SQLite Drizzle database; the Postgres
// one is built from tables with identical names and JS types, so the query-builder calls the repository
// layer makes (select/insert/update/delete, onConflict…, returning) behave the same on both.
// Nothing outside platform/db and the repositories sees which dialect is in use.
// Each dialect lives in its own module, loaded only when its URL is used: a SQLite deployment never
// loads the Postgres driver (a saving of several MB of resident memory).
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type * as sqliteSchema from "./schema-sqlite";
import type { EmbeddedMigration } from "./migrations.generated";

export type Tables = typeof sqliteSchema;
export type Orm = BunSQLiteDatabase<Tables>;
export type TableName = keyof Tables;
export type Row<K extends TableName> = Tables[K]["$inferInsert"];

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
   * own work); on Postgres one unnest statement of fixed text for the whole batch (pg-unnest.ts).
   */
  insertIgnoring<K extends TableName>(
    orm: Orm,
    table: K,
    rows: readonly Row<K>[],
    conflict: readonly (keyof Row<K> & string)[],
    returning: readonly (keyof Row<K> & string)[],
  ): Promise<Record<string, unknown>[]>;
  /**
   * Appends request records inside `tx` (rows unique by id); returns the ids of the rows inserted. On
   * SQLite, every row: the table is keyed by its rowid, and a batch is only ever retried after its
   * transaction failed, which leaves nothing behind (SQLite commits in process: a COMMIT either returns
   * or failed). On Postgres a COMMIT can be in doubt (the connection breaks), so rows whose id is stored
   * already are skipped.
   */
  insertRecords(orm: Orm, rows: readonly Row<"requestRecords">[]): Promise<string[]>;
  /**
   * Bulk upsert that adds: a row whose `conflict` columns match a stored row adds its `add` columns to
   * that row's (counters such as usage rollups). Rows must be unique on `conflict` (Postgres refuses
   * two in one statement). Inside `tx`; on SQLite one cached prepared statement per row (Drizzle built
   * and compiled a new statement for every record batch), on Postgres one unnest statement of fixed text.
   */
  upsertAdding<K extends TableName>(
    orm: Orm,
    table: K,
    rows: readonly Row<K>[],
    conflict: readonly (keyof Row<K> & string)[],
    add: readonly (keyof Row<K> & string)[],
  ): Promise<void>;
  /** A new incremental reader of the credit ledger (the credit poller's; see LedgerReader). */
  ledgerReader(): LedgerReader;
  ping(): Promise<void>;
  /**
   * A number that changes when another connection (the CLI, another process) commits to the database,
   * and not for this connection's own commits; null where the dialect has none (Postgres), meaning
   * "unknown: assume changed". SQLite's `PRAGMA data_version`. Lets the hot-path stores skip their
   * periodic re-read when nothing was written elsewhere (management/module.ts).
   */
  dataVersion(): number | null;
  migrate(): Promise<void>;
  pendingMigrations(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Reads the credit ledger in commit order: each next() returns, summed per workspace, the rows committed
 * since the previous call (every row on the first call), each row exactly once, at a cost that follows
 * the new rows rather than the table. SQLite: a rowid cursor (ledger-reader-sqlite.ts: one writer
 * commits at a time across all processes, so rowid order is commit order). Postgres: a transaction-ID
 * horizon (ledger-reader-pg.ts).
 * `reset`: the reader had to start over (the table was rebuilt under it) and `sums` are the whole table's.
 */
export interface LedgerReader {
  next(): Promise<{ sums: Map<string, number>; reset: boolean }>;
}

export const MIGRATIONS_TABLE = "switchyard_migrations";

export async function openDatabase(url: string): Promise<Database> {
  if (url.startsWith("sqlite:")) return (await import("./database-sqlite")).openSqlite(url.slice("sqlite:".length));
  return (await import("./database-postgres")).openPostgres(url);
}

export function pendingTags(all: EmbeddedMigration[], done: Set<string>): string[] {
  return all.filter((m) => !done.has(m.tag)).map((m) => m.tag);
}
