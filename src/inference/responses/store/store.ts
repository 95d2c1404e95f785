// The Responses store: what the gateway keeps of each Responses call made with `store` true (the API's
// default) while `responses.store` is on: the full input the model saw and the response object as the
// client received it, per workspace, for `previous_response_id` on any route and GET / DELETE
// /v1/responses/{id}. Writes go through the write-behind queue (writer.ts), never on the answer's path;
// expired rows are not found and a sweep deletes them. The database is the store, so in shared mode
// every instance sees what another kept (once flushed: FLUSH_INTERVAL_MS).
import { ApiError } from "../../../http/errors";
import type { Database } from "../../../platform/db/database";
import type { Logger } from "../../../platform/logger";
import { storedResponsesRepo, type StoredResponsesRepo, type StoredRow } from "./repo";
import { StoredResponseWriter, type StoreWriterOptions } from "./writer";

export interface ResponseStoreOptions {
  ttlMs: number;
  /** The largest input + response kept, in UTF-8 bytes. */
  maxBytes: number;
  /** How often expired rows are swept, ms. Default one hour. */
  sweepEveryMs?: number;
  writer?: StoreWriterOptions;
}

/** A kept response, parsed. */
export interface StoredResponse {
  id: string;
  /** The full input the model saw, earlier turns included. */
  input: unknown[];
  /** The response object as the client received it. */
  response: Record<string, unknown>;
  /** Its JSON text, served as it is by GET. */
  responseText: string;
  bytes: number;
  createdAt: number;
}

/** Why a response was not kept. */
export type KeepResult = { kept: true } | { kept: false; reason: "too_large" | "queue_full" | "not_a_response" };

const SWEEP_CHUNK = 500;

export class ResponseStore {
  readonly ttlMs: number;
  readonly maxBytes: number;
  private readonly repo: StoredResponsesRepo;
  private readonly writer: StoredResponseWriter;
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private sweeping: Promise<number> | null = null;

  constructor(
    db: Database,
    private readonly opts: ResponseStoreOptions,
    private readonly logger?: Logger,
  ) {
    this.ttlMs = opts.ttlMs;
    this.maxBytes = opts.maxBytes;
    this.repo = storedResponsesRepo(db);
    this.writer = new StoredResponseWriter(this.repo, {
      onError: (err, queued) => logger?.error("stored responses not written; will retry", { error: String(err), queued }),
      onRefused: (row, error) =>
        logger?.error("stored response refused by the database; not kept", { response_id: row.id, workspace_id: row.workspaceId, error }),
      ...opts.writer,
    });
  }

  /** UTF-8 length of a JSON text, as checked against maxBytes. */
  static bytesOf(text: string): number {
    return Buffer.byteLength(text, "utf8");
  }

  /**
   * Queues a finished response (its JSON text as sent; `parsed`, that text parsed, when the caller has it)
   * with the input the model saw. Not kept: an answer
   * that is not a response object with an ID, or a failed one, one over maxBytes, or a full queue.
   */
  keep(workspaceId: string, input: readonly unknown[], responseText: string, now: number, parsed?: unknown): KeepResult {
    let response: { object?: unknown; id?: unknown; status?: unknown };
    try {
      response = (parsed ?? JSON.parse(responseText)) as typeof response;
    } catch {
      return { kept: false, reason: "not_a_response" };
    }
    if (response?.object !== "response" || typeof response.id !== "string" || response.id === "" || response.status === "failed")
      return { kept: false, reason: "not_a_response" };
    const inputText = JSON.stringify(input);
    const bytes = ResponseStore.bytesOf(inputText) + ResponseStore.bytesOf(responseText);
    if (bytes > this.maxBytes) return { kept: false, reason: "too_large" };
    const row: StoredRow = {
      workspaceId,
      id: response.id,
      input: inputText,
      response: responseText,
      bytes,
      createdAt: now,
      expiresAt: now + this.ttlMs,
    };
    return this.writer.enqueue(row) ? { kept: true } : { kept: false, reason: "queue_full" };
  }

  /** The kept response of this workspace, or null (unknown, expired, another workspace's, deleted). */
  async find(workspaceId: string, id: string, now: number): Promise<StoredResponse | null> {
    const queued = this.writer.peek(workspaceId, id);
    const row = queued ?? (await this.repo.find(workspaceId, id, now).catch(unreachable));
    if (!row || row.expiresAt <= now) return null;
    return parseRow(row);
  }

  /** Deletes a kept response; false when there was none to delete. */
  async delete(workspaceId: string, id: string, now: number): Promise<boolean> {
    const queued = this.writer.forget(workspaceId, id);
    const stored = await this.repo.remove(workspaceId, id, now).catch(unreachable);
    return queued || stored;
  }

  /** Deletes every expired row, in chunks; returns how many. One sweep at a time. */
  sweep(now: number = Date.now()): Promise<number> {
    this.sweeping ??= this.sweepAll(now).finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  /** Sweeps now and then every sweepEveryMs until stop(). */
  startSweeping(): void {
    if (this.sweeper) return;
    const run = () => void this.sweep().catch((err: unknown) => this.logger?.warn("stored responses sweep failed", { error: String(err) }));
    run();
    this.sweeper = setInterval(run, this.opts.sweepEveryMs ?? 3_600_000);
    this.sweeper.unref?.();
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  /** Writes what is queued now (tests, shutdown). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  drain(timeoutMs?: number): Promise<boolean> {
    return this.writer.drain(timeoutMs);
  }

  queued(): number {
    return this.writer.size();
  }

  private async sweepAll(now: number): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.repo.sweep(now, SWEEP_CHUNK);
      total += n;
      if (n < SWEEP_CHUNK) return total;
    }
  }
}

/** A read or delete the database cannot serve now: a 503 the client may retry, not a generic 500. */
function unreachable(_err: unknown): never {
  throw new ApiError("service_unavailable", "The gateway cannot reach its stored responses now; retry shortly.", { retryAfterSeconds: 1 });
}

function parseRow(row: StoredRow): StoredResponse | null {
  try {
    const input = JSON.parse(row.input) as unknown;
    const response = JSON.parse(row.response) as unknown;
    if (!Array.isArray(input) || typeof response !== "object" || response === null) return null;
    return {
      id: row.id,
      input,
      response: response as Record<string, unknown>,
      responseText: row.response,
      bytes: row.bytes,
      createdAt: row.createdAt,
    };
  } catch {
    return null;
  }
}
