// Sets aside one request record the database refused: the whole record as JSON text in
// dead_letter_records, with the database's message, so that operators can read (and replay) it, and its
// credit debit in the same transaction, so that the call is still charged. Never retried afterwards.
import type { Database } from "../platform/db/database";
import { chargesCredits, debitLedgerId, type RequestRecord } from "./request-record";

/** JSON.stringify escapes NUL already; the other columns get the same escape by hand (Postgres text cannot hold NUL). */
const safe = (s: unknown): string => String(s ?? "").replaceAll("\u0000", "\\u0000");

/** Does the dead-letter transaction also write this record's debit? Only an amount the ledger can hold. */
export function debitsOnDeadLetter(r: RequestRecord): boolean {
  return chargesCredits(r) && Number.isSafeInteger(r.costMicrodollars);
}

export async function writeDeadLetter(db: Database, r: RequestRecord, error: string, now: number): Promise<void> {
  const row = {
    id: safe(r.recordId),
    requestId: safe(r.requestId),
    workspaceId: safe(r.workspaceId),
    record: JSON.stringify(r, (_k, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v)),
    error: safe(error),
    createdAt: now,
  };
  const debit = {
    id: debitLedgerId(row.id),
    workspaceId: row.workspaceId,
    amountMicrodollars: -r.costMicrodollars,
    reason: "usage",
    requestId: row.requestId,
    createdAt: now,
  };
  await db.tx(async (orm) => {
    await db.insertIgnoring(orm, "deadLetterRecords", [row], ["id"], []);
    if (debitsOnDeadLetter(r)) await db.insertIgnoring(orm, "creditLedger", [debit], ["id"], []);
  });
}
