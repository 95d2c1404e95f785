// The SQLite dialect's bulk writes (Database.insertIgnoring, insertRecords, upsertAdding): one cached
// prepared statement per table and conflict rule, run once per row. Drizzle's rendering and placeholder
// filling cost far more than SQLite's own work on the record writer's path.
import type { Database as BunSqlite } from "bun:sqlite";
import { getTableColumns, getTableName } from "drizzle-orm";
import * as sqliteSchema from "./schema-sqlite";
import type { Database, TableName } from "./database";

type Prepared = { stmt: ReturnType<BunSqlite["query"]>; keys: string[] };

// The values go to run() as one array (bun:sqlite binds an array argument as the parameter list): a
// spread of 28 arguments made run() gather them into a fresh array per row again.
function bind(keys: string[], values: unknown[], row: unknown): never {
  const r = row as Record<string, unknown>;
  for (let i = 0; i < keys.length; i++) values[i] = r[keys[i]!] ?? null;
  return values as never;
}

/** The three bulk writes of the facade over one connection. */
export function sqliteInserts(raw: BunSqlite): Pick<Database, "insertIgnoring" | "insertRecords" | "upsertAdding"> {
  // No RETURNING: run() reports whether the row went in (changes), and the returned columns are the
  // row's own values; a RETURNING row costs a result row per insert (about a third of the insert).
  const statements = new Map<string, Prepared>();
  // `conflict` empty: a plain INSERT. `add` empty: ON CONFLICT DO NOTHING; otherwise DO UPDATE adding
  // those columns of the new row.
  const statementFor = (table: TableName, conflict: readonly string[], add: readonly string[] = []): Prepared => {
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
  return {
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
  };
}
