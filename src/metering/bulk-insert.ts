// Multi-row INSERTs built once and reused. Rendering a 400-row INSERT is most of the cost of a record
// batch (Drizzle renders ~10,000 parameters every time), so each statement shape — table, chunk size —
// is built once with placeholders and prepared, then executed with a name → value map.
//
// Prepared statements belong to the handle they were built on, so the cache is keyed by the
// transaction's handle: on SQLite that is always the same handle (full reuse); on Postgres it is new per
// transaction (no reuse, no harm). The code is the same for both dialects.
import { sql, type Placeholder } from "drizzle-orm";
import type { Orm } from "../platform/db/database";

/** Rows per statement; 27 columns × 400 stays far below SQLite's and Postgres' parameter limits. */
export const ROWS_PER_STATEMENT = 400;

type Prepared = { execute(params: Record<string, unknown>): unknown };

export class BulkInsert<Row extends Record<string, unknown>> {
  private readonly cache = new WeakMap<Orm, Map<number, Prepared>>();
  /** names[j][c]: the placeholder name of column c in row j. */
  private readonly names: string[][];

  constructor(
    private readonly columns: readonly (keyof Row & string)[],
    /** Builds the statement for these placeholder rows and calls .prepare() on it. */
    private readonly build: (orm: Orm, rows: Record<string, Placeholder>[]) => Prepared,
  ) {
    this.names = Array.from({ length: ROWS_PER_STATEMENT }, (_, j) => columns.map((c) => `${c}_${j}`));
  }

  /** Inserts rows in chunks; returns what the statements return (RETURNING rows, if any), concatenated. */
  async run(orm: Orm, rows: readonly Row[]): Promise<unknown[]> {
    const out: unknown[] = [];
    let i = 0;
    for (const size of chunkSizes(rows.length)) {
      const params: Record<string, unknown> = {};
      for (let j = 0; j < size; j++) {
        const row = rows[i + j]!;
        const names = this.names[j]!;
        for (let c = 0; c < this.columns.length; c++) params[names[c]!] = row[this.columns[c]!] ?? null;
      }
      i += size;
      const result = await this.prepared(orm, size).execute(params);
      if (Array.isArray(result)) out.push(...result);
    }
    return out;
  }

  private prepared(orm: Orm, size: number): Prepared {
    let bySize = this.cache.get(orm);
    if (!bySize) this.cache.set(orm, (bySize = new Map()));
    let q = bySize.get(size);
    if (!q) {
      const rows = Array.from({ length: size }, (_, j) =>
        Object.fromEntries(this.columns.map((c, k) => [c, sql.placeholder(this.names[j]![k]!)])),
      );
      q = this.build(orm, rows);
      bySize.set(size, q);
    }
    return q;
  }
}

/** Full chunks, then the remainder as powers of two: at most ten prepared sizes per table. */
export function chunkSizes(n: number): number[] {
  const out: number[] = [];
  while (n >= ROWS_PER_STATEMENT) {
    out.push(ROWS_PER_STATEMENT);
    n -= ROWS_PER_STATEMENT;
  }
  for (let p = 256; p >= 1; p /= 2) {
    if (n >= p) {
      out.push(p);
      n -= p;
    }
  }
  return out;
}
