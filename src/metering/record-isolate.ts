// A batch the database refused (platform/db/refusal.ts) is bisected: each half is written in its own
// transaction, a refused half is split again, and a single refused record is set aside in the dead-letter
// table (dead-letter.ts). About 2·log2(n) transactions find one bad record among n. An outage met half-way
// stops the split: what is left is handed back to be retried whole, and nothing committed is written twice.
import type { Database } from "../platform/db/database";
import { dbErrorMessage, isDataRefusal } from "../platform/db/refusal";
import { writeDeadLetter } from "./dead-letter";
import { writeBatch } from "./record-batch";
import type { RequestRecord } from "./request-record";

export interface IsolateHooks {
  now(): number;
  /** A part of the batch committed (records, rollups, debits). */
  written(records: readonly RequestRecord[]): void;
  /** One record was refused and is now in the dead-letter table (its debit, if any, in the ledger). */
  deadLettered(record: RequestRecord, error: string): void;
  /** The records still to write, in order, after every step: the writer's pending batch. */
  remaining(records: RequestRecord[]): void;
}

/** A run of records still to write; `refused` holds the database's answer when it is known to refuse it. */
interface Part {
  records: RequestRecord[];
  refused: unknown;
}

/** Resolves with null once every record is written or set aside, or with the outage error that stopped it. */
export async function isolateRefused(db: Database, batch: RequestRecord[], refusal: unknown, hooks: IsolateHooks): Promise<unknown> {
  // A stack in reverse order: the last part is the next to write.
  const stack: Part[] = [{ records: batch, refused: refusal }];
  const left = () => [...stack].reverse().flatMap((p) => p.records);
  while (stack.length) {
    const part = stack.pop()!;
    const err = part.refused ?? (await attempt(db, part.records, hooks));
    if (err === null) {
      // written
    } else if (!isDataRefusal(err)) {
      stack.push(part);
      hooks.remaining(left());
      return err;
    } else if (part.records.length > 1) {
      const mid = Math.ceil(part.records.length / 2);
      stack.push({ records: part.records.slice(mid), refused: null }, { records: part.records.slice(0, mid), refused: null });
    } else {
      const setAside = await deadLetter(db, part.records[0]!, err, hooks);
      if (setAside !== null) {
        stack.push(part);
        hooks.remaining(left());
        return setAside;
      }
    }
    hooks.remaining(left());
  }
  return null;
}

async function attempt(db: Database, records: RequestRecord[], hooks: IsolateHooks): Promise<unknown> {
  try {
    await writeBatch(db, records, hooks.now());
  } catch (err) {
    return err;
  }
  hooks.written(records);
  return null;
}

async function deadLetter(db: Database, r: RequestRecord, refusal: unknown, hooks: IsolateHooks): Promise<unknown> {
  const message = dbErrorMessage(refusal);
  try {
    await writeDeadLetter(db, r, message, hooks.now());
  } catch (err) {
    return err;
  }
  hooks.deadLettered(r, message);
  return null;
}
