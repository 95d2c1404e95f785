// Tells "the database refused this data" (the same statement will fail again however often it is retried)
// from every other failure (unreachable, connection lost, locked, timed out, out of space), for both
// dialects. The record writer splits a refused batch to find the record at fault; anything else it
// retries whole, because setting records aside for an outage would take good records out of the books.

/** SQLSTATE classes of data the statement carried: 22 data exception (a NUL byte in text, a number out
 *  of range, NaN), 23 integrity constraint violation, 54 program limit exceeded (an index row too big). */
const PG_REFUSED_CLASSES = new Set(["22", "23", "54"]);
const SQLITE_REFUSED = /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH)/;

/** The driver's own error under any wrapper (Drizzle wraps Postgres errors in DrizzleQueryError). */
function rootCause(err: unknown): unknown {
  let e = err;
  for (let i = 0; i < 8 && e instanceof Error && e.cause !== undefined; i++) e = e.cause;
  return e;
}

export function isDataRefusal(err: unknown): boolean {
  const e = rootCause(err) as { name?: unknown; code?: unknown } | null;
  if (!e || typeof e.code !== "string") return false;
  if (e.name === "PostgresError") return e.code.length === 5 && PG_REFUSED_CLASSES.has(e.code.slice(0, 2));
  return SQLITE_REFUSED.test(e.code);
}

/**
 * The driver's message alone: a DrizzleQueryError's own message quotes the whole statement and its
 * parameters (every record of the batch, the offending bytes included), not fit for a log line or a row.
 */
export function dbErrorMessage(err: unknown): string {
  const e = rootCause(err);
  return e instanceof Error ? e.message : String(e);
}
