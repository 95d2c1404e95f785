// The Postgres dialect's bulk writes (Database.insertIgnoring, insertRecords, upsertAdding): one
// multi-row statement per chunk of 400 rows through Drizzle's builder.
import { getTableColumns, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import * as pgSchema from "./schema-pg";
import type { Database, Tables } from "./database";

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

export const pgInserts: Pick<Database, "insertIgnoring" | "insertRecords" | "upsertAdding"> = {
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
};
