// A unique-index violation, told apart on both dialects (SQLite's message, Postgres' SQLSTATE 23505),
// so that a lost race on a unique index becomes the same 409 as the check that precedes it.
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") return true;
    if (typeof message === "string" && /UNIQUE constraint failed|duplicate key value/.test(message)) return true;
  }
  return false;
}
