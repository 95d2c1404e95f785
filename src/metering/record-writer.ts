// Write-behind queue for request records. The request path only calls enqueue() (never awaits the
// database); batches are flushed by size or by age, one transaction each (record-batch.ts).
//
// Back-pressure: `maxQueued` is an admission limit, not a drop limit. The pipeline asks isFull() before
// it starts a call and answers 503 when it is true; enqueue() itself always accepts, because the record
// describes work already done (and possibly charged). So the queue can pass maxQueued only by the records
// of calls already in flight when it filled up, and no record is ever dropped.
//
// Failure: when a batch fails (database down, locked, slow), it stays at the head of the queue and is
// retried with exponential backoff; later records wait behind it. Retrying a batch whose commit did
// happen is harmless: the batch write is idempotent. A batch the database refuses (its data, not an
// outage: platform/db/refusal.ts) is split instead, its good records written and the one refused set
// aside in the dead-letter table (record-isolate.ts), so that one bad record cannot stop all the others.
import type { Database } from "../platform/db/database";
import { dbErrorMessage, isDataRefusal } from "../platform/db/refusal";
import { raceDeadline } from "../platform/deadline";
import { debitsOnDeadLetter } from "./dead-letter";
import { writeBatch } from "./record-batch";
import { isolateRefused, type IsolateHooks } from "./record-isolate";
import type { RequestRecord } from "./request-record";

export interface RecordWriterOptions {
  /** Records per transaction; a full batch is flushed at once. Default 500. */
  batchSize?: number;
  /** Longest a record waits for a partial batch to be flushed, ms. Default 250 (FLUSH_INTERVAL_MS). */
  flushIntervalMs?: number;
  /** isFull() turns true at this many queued records. Default 100,000. */
  maxQueued?: number;
  /** First retry delay after a failed batch, doubled per failure up to maxBackoffMs. Default 100. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Called after each committed batch (or part of one) with all of its records (inserted now or already
   *  present), and with a dead-lettered record whose credit debit was written with it. */
  onFlushed?: (records: readonly RequestRecord[]) => void;
  /** Called when a batch fails; the batch will be retried. */
  onError?: (err: unknown, queued: number) => void;
  /** Called when the database refused a record and it was set aside in dead_letter_records. */
  onDeadLetter?: (record: RequestRecord, error: string) => void;
  now?: () => number;
}

/**
 * A batch's commit writes the same B-tree pages to the WAL (~10 frames: the records and their two
 * indexes, the rollup, the debit and its two) whether it carries 5 records or 50, so at low traffic the
 * interval sets what a record costs. Measured (bench/probes/paced-records.ts, 67 records/s: the bench's
 * 8 streams; CPU per record over a pacing-only baseline, three rounds each): ~115 µs at 100 ms, ~65 at
 * 250, ~55 at 500. Side by side at 8 streams (bench/ab.ts --together) 250 against 100: paired 0.93.
 * The price is the window a hard crash (not a shutdown, which drains) can lose: 250 ms of records, well
 * inside what peers batch (seconds). Busy gateways fill the 500-record batch first and are unaffected.
 */
export const FLUSH_INTERVAL_MS = 250;

export interface RecordWriterStatus {
  queued: number;
  lastError: string | null;
  /** Epoch ms of the last committed batch, null before the first. */
  lastFlushAt: number | null;
  /** False while the last attempted batch failed (records are waiting for the database). */
  healthy: boolean;
  /** Records the database refused, set aside in dead_letter_records since start-up. */
  deadLettered: number;
  /** Records committed to request_records since start-up (a retried batch's records count once). */
  written: number;
}

export interface DrainResult {
  /** True when every queued record was committed before the timeout. */
  complete: boolean;
  remaining: number;
}

export class RecordWriter {
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly maxQueued: number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly now: () => number;

  /** Records not yet taken into a batch. A plain array with a head index: shift() would be O(n). */
  private queue: RequestRecord[] = [];
  private head = 0;
  /** The batch being written or waiting for a retry; it goes first, always. */
  private pending: RequestRecord[] | null = null;
  private flushing: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Epoch ms the armed timer fires at. */
  private timerDue = 0;
  private failures = 0;
  private lastError: string | null = null;
  private lastFlushAt: number | null = null;
  private deadLettered = 0;
  private written = 0;
  private readonly isolateHooks: IsolateHooks = {
    now: () => this.now(),
    written: (records) => {
      this.written += records.length;
      this.flushed(records);
    },
    remaining: (records) => {
      this.pending = records;
    },
    deadLettered: (record, error) => {
      this.deadLettered += 1;
      if (debitsOnDeadLetter(record)) this.flushed([record]);
      this.opts.onDeadLetter?.(record, error);
    },
  };

  constructor(
    private readonly db: Database,
    private readonly opts: RecordWriterOptions = {},
  ) {
    this.batchSize = opts.batchSize ?? 500;
    this.flushIntervalMs = opts.flushIntervalMs ?? FLUSH_INTERVAL_MS;
    this.maxQueued = opts.maxQueued ?? 100_000;
    this.initialBackoffMs = opts.initialBackoffMs ?? 100;
    this.maxBackoffMs = opts.maxBackoffMs ?? 5_000;
    this.now = opts.now ?? Date.now;
  }

  /** Queues a record; returns at once. Never drops a record (see the back-pressure note above). */
  enqueue(record: RequestRecord): void {
    this.queue.push(record);
    if (this.flushing) return; // the running flush loop picks it up
    if (this.waiting() >= this.batchSize && this.failures === 0) this.schedule(0);
    else this.schedule(this.failures === 0 ? this.flushIntervalMs : this.backoffMs());
  }

  /** True when new calls should be refused (503) until the database catches up. */
  isFull(): boolean {
    return this.size() >= this.maxQueued;
  }

  size(): number {
    return this.waiting() + (this.pending?.length ?? 0);
  }

  status(): RecordWriterStatus {
    return {
      queued: this.size(),
      lastError: this.lastError,
      lastFlushAt: this.lastFlushAt,
      healthy: this.failures === 0,
      deadLettered: this.deadLettered,
      written: this.written,
    };
  }

  /** Flushes now, until the queue is empty or a batch fails. Resolves when that pass is over. */
  flush(): Promise<void> {
    this.clearTimer();
    if (!this.flushing) {
      this.flushing = this.flushLoop().finally(() => {
        this.flushing = null;
        this.afterLoop();
      });
    }
    return this.flushing;
  }

  /**
   * Shutdown: writes everything queued, retrying failed batches until timeoutMs has passed.
   * Timers are cleared afterwards; records enqueued later are flushed by the usual timer again.
   */
  async drain(timeoutMs = 10_000): Promise<DrainResult> {
    const deadline = this.now() + timeoutMs;
    let delay = this.initialBackoffMs;
    while (this.size() > 0) {
      const left = deadline - this.now();
      if (left <= 0) break;
      // A batch stuck on a lock must not hold shutdown past the deadline.
      await raceDeadline([this.flush()], left);
      if (this.size() === 0 || this.failures === 0) continue;
      await Bun.sleep(Math.min(delay, Math.max(0, deadline - this.now())));
      delay = Math.min(delay * 2, this.maxBackoffMs);
    }
    const remaining = this.size();
    if (remaining === 0) this.clearTimer();
    return { complete: remaining === 0, remaining };
  }

  private waiting(): number {
    return this.queue.length - this.head;
  }

  private async flushLoop(): Promise<void> {
    for (;;) {
      const batch = this.pending ?? this.take();
      if (batch.length === 0) return;
      this.pending = batch;
      const err = await this.write(batch);
      if (err !== null) {
        this.failures += 1;
        this.lastError = dbErrorMessage(err);
        this.opts.onError?.(err, this.size());
        return; // afterLoop schedules the retry (of what is still pending) with backoff
      }
      this.pending = null;
      this.failures = 0;
      this.lastError = null;
      this.lastFlushAt = this.now();
      // Keep going while full batches are ready; a partial batch waits for its timer (afterLoop).
      if (this.waiting() < this.batchSize) return;
    }
  }

  /** Writes a batch, splitting one the database refuses; null once all of it is written or set aside. */
  private async write(batch: RequestRecord[]): Promise<unknown> {
    try {
      await writeBatch(this.db, batch, this.now());
    } catch (err) {
      return isDataRefusal(err) ? isolateRefused(this.db, batch, err, this.isolateHooks) : err;
    }
    this.written += batch.length;
    this.flushed(batch);
    return null;
  }

  private flushed(records: readonly RequestRecord[]): void {
    try {
      this.opts.onFlushed?.(records);
    } catch (err) {
      this.opts.onError?.(err, this.size()); // the records are committed: a hook failure changes nothing here
    }
  }

  /** Runs once the loop has ended, so records enqueued while it was ending are never left without a timer. */
  private afterLoop(): void {
    if (this.failures > 0) this.schedule(this.backoffMs(), true);
    else if (this.waiting() >= this.batchSize) this.schedule(0, true);
    else if (this.waiting() > 0) this.schedule(this.flushIntervalMs);
  }

  private take(): RequestRecord[] {
    const end = Math.min(this.queue.length, this.head + this.batchSize);
    const batch = this.queue.slice(this.head, end);
    this.head = end;
    // Drop the taken records from the queue once they are as many as those still waiting (amortised: each
    // waiting record is copied at most once per time the queue halves). Taken records left in the array
    // stayed reachable after their commit: with a floor of 4,096 before compacting, up to ~4,000 committed
    // records outlived every young collection and piled up as old garbage for the full ones.
    if (this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return batch;
  }

  private backoffMs(): number {
    return Math.min(this.initialBackoffMs * 2 ** Math.max(0, this.failures - 1), this.maxBackoffMs);
  }

  /** Arms the flush timer unless one is armed already (replace: a sooner or retry deadline wins). */
  private schedule(ms: number, replace = false): void {
    const due = this.now() + ms;
    if (this.timer && !replace && (ms > 0 || this.timerDue <= due)) return;
    this.clearTimer();
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, ms);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
