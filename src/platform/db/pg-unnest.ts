// Bulk INSERTs on Postgres as ONE fixed statement text per table and conflict rule: the rows travel as one
// array parameter per column, `INSERT … SELECT * FROM unnest($1::text[], $2::bigint[], …)`. Drizzle's
// builder rendered a new multi-row VALUES statement for every batch (work in rows × columns, and a
// statement postgres.js had to prepare again for every batch size); this text is prepared once per
// connection and a batch costs one array literal per column. The columns and their SQL types come from
// the Drizzle table, so a column added to schema-pg.ts is written without touching this file.
import { Column, getTableColumns, getTableName, is, SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";

/** A column the statement writes: its row key, and the value Drizzle's insert gave a row without one. */
interface Written {
  key: string;
  name: string;
  /** The value of a row whose key is undefined; null when Drizzle would have sent DEFAULT to a column without one. */
  missing: () => unknown;
  /** The column's own driver mapping, when it has one (JSON columns, custom types). */
  toDriver: ((v: unknown) => unknown) | null;
}

export interface UnnestStatement {
  /** The statement text: the same for every batch. */
  readonly text: string;
  /** The written columns' database names, in parameter order. */
  readonly columns: readonly string[];
  /** One array-literal parameter per column for these rows (Drizzle insert shapes: JS keys). */
  params(rows: readonly object[]): string[];
  /** The RETURNING row as JS keys and values, as Drizzle's returning() gave it. */
  returned(row: Record<string, unknown>): Record<string, unknown>;
}

export interface UnnestOptions {
  /** JS keys of the ON CONFLICT target; empty: any conflict. */
  conflict: readonly string[];
  /** JS keys added on conflict (DO UPDATE SET c = t.c + excluded.c); empty: DO NOTHING. */
  add?: readonly string[];
  returning?: readonly string[];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const identity = Column.prototype.mapToDriverValue;
const identityFrom = Column.prototype.mapFromDriverValue;

/**
 * What an absent key became in Drizzle's insert: its $defaultFn (or $onUpdateFn on a column without a
 * default), the static default (which the migration gives the column too), or NULL. Null when only the
 * database can fill the column (serial, identity, an SQL default): such columns are left out of the statement.
 */
function missingValue(col: PgColumn): (() => unknown) | null {
  if (col.generatedIdentity) return null;
  const fn = col.defaultFn ?? (!col.default ? col.onUpdateFn : undefined);
  if (fn)
    return () => {
      const v = fn();
      if (is(v, SQL)) throw new Error(`column ${col.name}: an SQL default function cannot fill an unnest insert`);
      return v;
    };
  if (!col.hasDefault) return () => null;
  if (col.default === undefined || is(col.default, SQL)) return null;
  const v = col.default;
  return () => v;
}

/** One array element in Postgres' array-literal syntax, the way postgres.js serialises a parameter. */
function element(v: unknown): string {
  if (v === null) return "NULL";
  switch (typeof v) {
    case "string":
      return /["\\]/.test(v) ? `"${v.replace(/["\\]/g, "\\$&")}"` : `"${v}"`;
    case "number":
    case "bigint":
      return `"${v}"`;
    case "boolean":
      return v ? "t" : "f";
  }
  if (v instanceof Date) return `"${v.toISOString()}"`;
  throw new Error(`unnest insert: a ${typeof v} value (SQL or object) where a plain value belongs`);
}

/** The columns an insert writes (with their SQL types), and the JS keys of those only the database fills. */
function writtenColumns(all: Record<string, PgColumn>): { written: Written[]; types: string[]; dbFilled: string[] } {
  const written: Written[] = [];
  const types: string[] = [];
  const dbFilled: string[] = [];
  for (const [key, col] of Object.entries(all)) {
    // Drizzle's insert leaves generated columns out too (Column.shouldDisableInsert).
    if (col.generated !== undefined && col.generated.type !== "byDefault") continue;
    const missing = missingValue(col);
    if (!missing) {
      dbFilled.push(key);
      continue;
    }
    const type = col.getSQLType();
    // unnest flattens a multi-dimensional array whole: an array column cannot travel as one.
    if (type.endsWith("]")) throw new Error(`unnest insert: array column ${col.name} is not supported`);
    const toDriver = col.mapToDriverValue === identity ? null : (v: unknown) => col.mapToDriverValue(v);
    written.push({ key, name: col.name, missing, toDriver });
    types.push(type);
  }
  return { written, types, dbFilled };
}

export function unnestStatement(table: PgTable, o: UnnestOptions): UnnestStatement {
  const all = getTableColumns(table) as Record<string, PgColumn>;
  const { written, types, dbFilled } = writtenColumns(all);
  const name = (key: string) => {
    const c = all[key];
    if (!c) throw new Error(`unnest insert: ${getTableName(table)} has no column ${key}`);
    return quote(c.name);
  };
  const t = quote(getTableName(table));
  const target = o.conflict.length ? ` (${o.conflict.map(name).join(", ")})` : "";
  const add = o.add ?? [];
  const action = add.length
    ? `DO UPDATE SET ${add.map((k) => `${name(k)} = ${t}.${name(k)} + excluded.${name(k)}`).join(", ")}`
    : "DO NOTHING";
  const returning = o.returning ?? [];
  const text =
    `INSERT INTO ${t} (${written.map((w) => quote(w.name)).join(", ")}) ` +
    `SELECT * FROM unnest(${types.map((ty, i) => `$${i + 1}::${ty}[]`).join(", ")}) ` +
    `ON CONFLICT${target} ${action}` +
    (returning.length ? ` RETURNING ${returning.map(name).join(", ")}` : "");
  const back = returning.map((k) => {
    const c = all[k]!;
    return { key: k, name: c.name, from: c.mapFromDriverValue === identityFrom ? null : (v: unknown) => c.mapFromDriverValue(v) };
  });

  return {
    text,
    columns: written.map((w) => w.name),
    params(rows) {
      const rs = rows as readonly Record<string, unknown>[];
      for (const key of dbFilled)
        for (const r of rs) if (r[key] !== undefined) throw new Error(`unnest insert: column ${key} is filled by the database`);
      return written.map((w) => {
        let s = "{";
        for (let i = 0; i < rs.length; i++) {
          let v = rs[i]![w.key];
          if (v === undefined) v = w.missing();
          if (w.toDriver && v !== null) v = w.toDriver(v);
          s += (i ? "," : "") + element(v);
        }
        return s + "}";
      });
    },
    returned(row) {
      const out: Record<string, unknown> = {};
      for (const b of back) {
        const v = row[b.name];
        out[b.key] = b.from && v !== null ? b.from(v) : v;
      }
      return out;
    },
  };
}
