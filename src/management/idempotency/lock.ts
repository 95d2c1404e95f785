// The "first request with this Idempotency-Key is still running" lock. In-process here; a shared
// (Redis SET NX PX) implementation fits the same interface for several instances.
export interface IdempotencyLock {
  /** True when the caller now holds the lock; false when someone else does. Expires after ttlMs. */
  acquire(key: string, ttlMs: number): Promise<boolean>;
  release(key: string): Promise<void>;
}

export class MemoryIdempotencyLock implements IdempotencyLock {
  private readonly held = new Map<string, number>();

  async acquire(key: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const until = this.held.get(key);
    if (until !== undefined && until > now) return false;
    this.held.set(key, now + ttlMs);
    return true;
  }

  async release(key: string): Promise<void> {
    this.held.delete(key);
  }
}
