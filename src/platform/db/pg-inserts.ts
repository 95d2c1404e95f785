// The Postgres dialect's bulk writes (Database.insertIgnoring, insertRecords, upsertAdding): one
// fixed-text unnest statement per table and conflict rule (pg-unnest.ts), run on the postgres.js handle
// under the Drizzle transaction, and prepared once per connection whatever the batch size.
import type postgres from "postgres";
import { unnestStatement, type UnnestOptions, type UnnestStatement } from "./pg-unnest";
import * as pgSchema from "./schema-pg";
import type { Database, Orm, TableName } from "./database";

type PgHandle = postgres.Sql | postgres.TransactionSql;

/** The postgres.js handle under a Drizzle postgres-js database or transaction (its session's client). */
function clientOf(orm: Orm): PgHandle {
  const c = (orm as unknown as { session?: { client?: { unsafe?: unknown } } }).session?.client;
  if (typeof c?.unsafe !== "function") throw new Error("pg-inserts: not a Drizzle postgres-js handle");
  return c as PgHandle;
}

const statements = new Map<string, UnnestStatement>();
function statementFor(table: TableName, o: Required<UnnestOptions>): UnnestStatement {
  const id = `${table}|${o.conflict.join(",")}|${o.add.join(",")}|${o.returning.join(",")}`;
  let s = statements.get(id);
  if (!s) statements.set(id, (s = unnestStatement(pgSchema[table], o)));
  return s;
}

/** The request records' statement, built at load: the record writer runs it on every flush. */
export const RECORD_INSERT = statementFor("requestRecords", { conflict: ["id"], add: [], returning: ["id"] });

async function run(orm: Orm, s: UnnestStatement, rows: readonly object[]): Promise<Record<string, unknown>[]> {
  if (!rows.length) return [];
  return clientOf(orm).unsafe(s.text, s.params(rows), { prepare: true }) as Promise<Record<string, unknown>[]>;
}

export const pgInserts: Pick<Database, "insertIgnoring" | "insertRecords" | "upsertAdding"> = {
  insertIgnoring: async (tx, table, rows, conflict, returning) => {
    const s = statementFor(table, { conflict, add: [], returning });
    const out = await run(tx, s, rows);
    return returning.length ? out.map((r) => s.returned(r)) : [];
  },
  insertRecords: async (tx, rows) => (await run(tx, RECORD_INSERT, rows)).map((r) => RECORD_INSERT.returned(r).id as string),
  upsertAdding: async (tx, table, rows, conflict, add) => {
    await run(tx, statementFor(table, { conflict, add, returning: [] }), rows);
  },
};
