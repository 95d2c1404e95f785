// Idempotency-Key handling for POST budgets and POST byok-keys (API document §4.3, §8):
// same key and body → the original status and body; same key, other body → 409 idempotency_conflict;
// while the first is still running → 409 idempotency_in_progress. Answers below 500 are stored (they
// are what the same body will always get); 5xx answers are not, so the caller can retry them.
import { ApiError } from "../../http/errors";
import { sha256Hex } from "../../platform/ids";
import type { Orm } from "../../platform/db/database";
import type { IdempotencyLock } from "./lock";
import type { IdempotencyStore } from "./store";

const KEY_PATTERN = /^[A-Za-z0-9_-]{1,255}$/;
/** Bounds how long a crashed or hung first request blocks its key. */
const LOCK_TTL_MS = 120_000;

export interface Reply<B = unknown> {
  status: number;
  body?: B;
}

/** Stores the reply inside the write's own transaction (a write that commits without its record would
 * run again on retry); a handler that never calls it has its reply stored afterwards. */
export type SaveReply = (o: Orm, reply: Reply) => Promise<void>;

/** JSON with object keys sorted, so that key order does not change the body hash. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

export interface IdempotentCall {
  workspaceId: string;
  route: string;
  key: string | null;
  body: unknown;
}

export async function withIdempotency(
  deps: { store: IdempotencyStore; lock: IdempotencyLock },
  call: IdempotentCall,
  run: (saveReply: SaveReply | null) => Promise<Reply>,
): Promise<Reply> {
  if (call.key === null) return run(null);
  if (!KEY_PATTERN.test(call.key)) {
    throw new ApiError("invalid_parameter", "Invalid 'Idempotency-Key': 1 to 255 characters of A-Z, a-z, 0-9, '_' and '-'.", {
      param: "Idempotency-Key",
    });
  }
  const bodyHash = sha256Hex(canonical(call.body));
  const replay = async (): Promise<Reply | undefined> => {
    const prev = await deps.store.find(call.workspaceId, call.route, call.key!);
    if (!prev) return undefined;
    if (prev.bodyHash !== bodyHash) {
      throw new ApiError("idempotency_conflict", "This Idempotency-Key was already used with a different request body.", {
        param: "Idempotency-Key",
      });
    }
    return { status: prev.status, body: prev.body };
  };
  const first = await replay();
  if (first) return first;
  const lockKey = `${call.workspaceId}:${call.route}:${call.key}`;
  if (!(await deps.lock.acquire(lockKey, LOCK_TTL_MS))) {
    throw new ApiError("idempotency_in_progress", "A request with this Idempotency-Key is still running; retry shortly.", {
      param: "Idempotency-Key",
    });
  }
  try {
    const again = await replay();
    if (again) return again;
    let reply: Reply;
    let saved = false;
    const saveReply: SaveReply = async (o, r) => {
      await deps.store.save(call.workspaceId, call.route, call.key!, { bodyHash, status: r.status, body: r.body }, Date.now(), o);
      saved = true;
    };
    try {
      reply = await run(saveReply);
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) {
        await deps.store.save(call.workspaceId, call.route, call.key, { bodyHash, status: err.status, body: err.body() });
      }
      throw err;
    }
    if (reply.status < 500 && !saved)
      await deps.store.save(call.workspaceId, call.route, call.key, { bodyHash, status: reply.status, body: reply.body });
    return reply;
  } finally {
    await deps.lock.release(lockKey);
  }
}
