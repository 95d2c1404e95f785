// Write-behind queue for kept responses, with the request records' discipline (metering/record-writer.ts):
// the answer's path only enqueues; batches go in one transaction by size or by age (FLUSH_INTERVAL_MS); a
// failed batch stays at the head and is retried with exponential backoff; a batch the database refuses is
// written row by row and the refused row is dropped and reported (a kept response is optional state, not
// a book entry: it is not dead-lettered). A separate queue, because a response is complete only when its
// answer is written, after the call's request record was queued by the pipeline.
// Unlike records, rows are looked up while queued (a follow-up may come before the flush) and may be
// deleted while queued or in flight; the queue is bounded by bytes: past maxQueuedBytes a row is not kept.
import { FLUSH_INTERVAL_MS } from "../../../metering/record-writer";
import { raceDeadline } from "../../../platform/deadline";
import { dbErrorMessage, isDataRefusal } from "../../../platform/db/refusal";
import type { StoredResponsesRepo, StoredRow } from "./repo";

export interface StoreWriterOptions {
  batchSize?: number;
  flushIntervalMs?: number;
  /** Rows waiting past this many bytes: a new one is not kept (the database is down or slow). Default 256 MiB. */
  maxQueuedBytes?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  onError?: (err: unknown, queued: number) => void;
  /** The database refused this row: the response is not kept. */
  onRefused?: (row: StoredRow, error: string) => void;
}

const keyOf = (workspaceId: string, id: string): string => `${workspaceId}\u0000${id}`;

export class StoredResponseWriter {
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly maxQueuedBytes: number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  /** Every row not yet committed (queued or in flight), by workspace and ID, in enqueue order. */
  private readonly rows = new Map<string, StoredRow>();
  private pending: StoredRow[] | null = null;
  /** Rows deleted while their batch was being written: deleted again once it commits. */
  private tombstones: StoredRow[] = [];
  private bytes = 0;
  private failures = 0;
  private flushing: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly repo: StoredResponsesRepo,
    private readonly opts: StoreWriterOptions = {},
  ) {
    this.batchSize = opts.batchSize ?? 100;
    this.flushIntervalMs = opts.flushIntervalMs ?? FLUSH_INTERVAL_MS;
    this.maxQueuedBytes = opts.maxQueuedBytes ?? 256 * 1024 * 1024;
    this.initialBackoffMs = opts.initialBackoffMs ?? 100;
    this.maxBackoffMs = opts.maxBackoffMs ?? 5_000;
  }

  /** Queues a row; returns at once. False when the queue is over its byte bound (the row is not kept). */
  enqueue(row: StoredRow): boolean {
    if (this.bytes + row.bytes > this.maxQueuedBytes) return false;
    const k = keyOf(row.workspaceId, row.id);
    const before = this.rows.get(k);
    if (before) this.bytes -= before.bytes;
    this.rows.delete(k);
    this.rows.set(k, row);
    this.bytes += row.bytes;
    if (!this.flushing) this.schedule(this.failures > 0 ? this.backoffMs() : this.rows.size >= this.batchSize ? 0 : this.flushIntervalMs);
    return true;
  }

  /** A row not committed yet (a follow-up that overtook the flush). */
  peek(workspaceId: string, id: string): StoredRow | undefined {
    return this.rows.get(keyOf(workspaceId, id));
  }

  /** Drops a row not committed yet; true when there was one. One in flight is deleted again after its commit. */
  forget(workspaceId: string, id: string): boolean {
    const k = keyOf(workspaceId, id);
    const row = this.rows.get(k);
    if (!row) return false;
    this.rows.delete(k);
    this.bytes -= row.bytes;
    if (this.pending?.includes(row)) this.tombstones.push(row);
    return true;
  }

  size(): number {
    return this.rows.size;
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.flushing) {
      this.flushing = this.loop().finally(() => {
        this.flushing = null;
        if (this.failures > 0) this.schedule(this.backoffMs());
        else if (this.rows.size > 0) this.schedule(this.rows.size >= this.batchSize ? 0 : this.flushIntervalMs);
      });
    }
    return this.flushing;
  }

  /** Shutdown: writes what is queued, retrying until timeoutMs has passed; true when everything was written. */
  async drain(timeoutMs = 10_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.rows.size > 0 && Date.now() < deadline) {
      await raceDeadline([this.flush()], deadline - Date.now());
      if (this.failures > 0) await Bun.sleep(Math.min(this.backoffMs(), Math.max(0, deadline - Date.now())));
    }
    if (this.rows.size === 0 && this.timer) clearTimeout(this.timer);
    return this.rows.size === 0;
  }

  private async loop(): Promise<void> {
    while (this.rows.size > 0) {
      const batch = this.take();
      this.pending = batch;
      try {
        await this.write(batch);
      } catch (err) {
        this.failures += 1;
        this.opts.onError?.(err, this.rows.size);
        return;
      } finally {
        this.pending = null;
      }
      this.failures = 0;
      for (const row of batch) this.settle(row);
      await this.buryTombstones();
      if (this.rows.size < this.batchSize) return;
    }
  }

  /** One transaction; a refused batch is written row by row and the refused rows are dropped. */
  private async write(batch: StoredRow[]): Promise<void> {
    try {
      await this.repo.insert(batch);
    } catch (err) {
      if (!isDataRefusal(err)) throw err;
      for (const row of batch) {
        try {
          await this.repo.insert([row]);
        } catch (rowErr) {
          if (!isDataRefusal(rowErr)) throw rowErr;
          this.settle(row);
          this.opts.onRefused?.(row, dbErrorMessage(rowErr));
        }
      }
    }
  }

  /** A committed (or refused) row leaves the queue unless a newer row took its key meanwhile. */
  private settle(row: StoredRow): void {
    const k = keyOf(row.workspaceId, row.id);
    if (this.rows.get(k) !== row) return;
    this.rows.delete(k);
    this.bytes -= row.bytes;
  }

  private async buryTombstones(): Promise<void> {
    const dead = this.tombstones;
    this.tombstones = [];
    for (const row of dead)
      await this.repo.remove(row.workspaceId, row.id, 0).catch((err: unknown) => this.opts.onError?.(err, this.rows.size));
  }

  private take(): StoredRow[] {
    const batch: StoredRow[] = [];
    for (const row of this.rows.values()) {
      if (batch.length === this.batchSize) break;
      batch.push(row);
    }
    return batch;
  }

  private backoffMs(): number {
    return Math.min(this.initialBackoffMs * 2 ** Math.max(0, this.failures - 1), this.maxBackoffMs);
  }

  /** Arms the flush timer; an armed one stays unless this one is due at once (a full batch). */
  private schedule(ms: number): void {
    if (this.timer && ms > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, ms);
  }
}
