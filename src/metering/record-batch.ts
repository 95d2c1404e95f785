// Writes one batch of request records in ONE transaction: the records, the usage rollups they add to,
// and the credit debits they cause. Safe to retry, so the writer may retry a batch whose commit it could
// not confirm: only the records the facade really inserted feed the rollups and the debits (on Postgres,
// records whose server-made id is stored already are skipped; on SQLite a failed batch left nothing, see
// Database.insertRecords), and a debit row's ID is derived from a record ID.
import type { Database, Orm } from "../platform/db/database";
import type { creditLedger } from "../platform/db/schema-sqlite";

import { chargesCredits, debitLedgerId, toRow, utcDay, type RequestRecord } from "./request-record";

type LedgerRow = typeof creditLedger.$inferInsert;

export interface BatchOutcome {
  /** Records inserted by this batch (the others already existed: a retried batch). */
  inserted: number;
  duplicates: number;
}

export async function writeBatch(db: Database, batch: readonly RequestRecord[], now: number): Promise<BatchOutcome> {
  return db.tx(async (orm) => {
    const fresh = await insertRecords(db, orm, batch);
    await upsertRollups(db, orm, fresh);
    await insertDebits(db, orm, fresh, now);
    return { inserted: fresh.length, duplicates: batch.length - fresh.length };
  });
}

/** The batch's records that were not stored before: a record enqueued twice in one batch counts once. */
async function insertRecords(db: Database, orm: Orm, batch: readonly RequestRecord[]): Promise<RequestRecord[]> {
  const seen = new Set<string>();
  const unique: RequestRecord[] = [];
  for (const r of batch) {
    if (seen.has(r.recordId)) continue;
    seen.add(r.recordId);
    unique.push(r);
  }
  const inserted = await db.insertRecords(orm, unique.map(toRow));
  if (inserted.length === unique.length) return unique;
  const keys = new Set(inserted);
  return unique.filter((r) => keys.has(r.recordId));
}

interface RollupDelta {
  workspaceId: string;
  day: string;
  model: string;
  provider: string;
  apiKeyId: string;
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costMicrodollars: number;
}

/**
 * Rollups per (workspace, UTC day, model, provider, API key). `requests` counts calls (final attempts)
 * and `errors` the failed ones (docs/contract.md "Records and usage"); tokens and cost add every attempt, so a rollup always
 * equals the sum of its records. Deltas are summed here first: one row per key per statement, which
 * Postgres requires for ON CONFLICT DO UPDATE.
 */
export function rollupDeltas(records: readonly RequestRecord[]): RollupDelta[] {
  const byKey = new Map<string, RollupDelta>();
  for (const r of records) {
    const day = utcDay(r.createdAt);
    const model = r.modelCanonical ?? r.model ?? "";
    const provider = r.provider ?? "";
    const apiKeyId = r.apiKeyId ?? "";
    const k = `${r.workspaceId}\u0000${day}\u0000${model}\u0000${provider}\u0000${apiKeyId}`;
    let acc = byKey.get(k);
    if (!acc) {
      acc = {
        workspaceId: r.workspaceId,
        day,
        model,
        provider,
        apiKeyId,
        requests: 0,
        errors: 0,
        inputTokens: 0,
        outputTokens: 0,
        costMicrodollars: 0,
      };
      byKey.set(k, acc);
    }
    if (r.isFinalAttempt) {
      acc.requests += 1;
      if (!r.success) acc.errors += 1;
    }
    acc.inputTokens += r.inputTokens;
    acc.outputTokens += r.outputTokens;
    acc.costMicrodollars += r.costMicrodollars;
  }
  return [...byKey.values()];
}

const ROLLUP_KEY = ["workspaceId", "day", "model", "provider", "apiKeyId"] as const;
const ROLLUP_COUNTERS = ["requests", "errors", "inputTokens", "outputTokens", "costMicrodollars"] as const;

async function upsertRollups(db: Database, orm: Orm, fresh: readonly RequestRecord[]): Promise<void> {
  await db.upsertAdding(orm, "usageRollups", rollupDeltas(fresh), ROLLUP_KEY, ROLLUP_COUNTERS);
}

/**
 * One debit row per workspace per batch: the sum of the batch's charged calls (each call's charge stays
 * on its own request record, cost_microdollars). A row per call made the ledger grow with traffic, and
 * with it the credit poller's reads and the balance sum. requestId is kept when the row is one call's.
 * created_at is the write time (when the debit reached the ledger), not the request time.
 */
async function insertDebits(db: Database, orm: Orm, fresh: readonly RequestRecord[], now: number): Promise<void> {
  const byWs = new Map<string, { first: RequestRecord; calls: number; amount: number }>();
  for (const r of fresh) {
    if (!chargesCredits(r)) continue;
    const d = byWs.get(r.workspaceId);
    if (d) {
      d.calls++;
      d.amount += r.costMicrodollars;
    } else byWs.set(r.workspaceId, { first: r, calls: 1, amount: r.costMicrodollars });
  }
  const rows: LedgerRow[] = [...byWs].map(([workspaceId, d]) => ({
    id: debitLedgerId(d.first.recordId),
    workspaceId,
    amountMicrodollars: -d.amount,
    reason: "usage",
    requestId: d.calls === 1 ? d.first.requestId : null,
    createdAt: now,
  }));
  await db.insertIgnoring(orm, "creditLedger", rows, ["id"], []);
}
