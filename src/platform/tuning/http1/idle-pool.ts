// Idle keep-alive connections, per origin, most recently parked first. One interval for the whole pool
// closes connections past their idle time, and stops when nothing is idle.

export interface Poolable {
  socket: { end(): void } | null;
  origin: { key: string };
  /** Carried an earlier exchange (set when parked). */
  reused: boolean;
  idleSince: number;
  idleMs: number;
}

export class IdlePool<C extends Poolable> {
  private readonly pools = new Map<string, C[]>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    /** An idle connection is closed after this long (or the server's keep-alive timeout, if shorter). */
    private readonly idleMs: number,
    private readonly maxPerOrigin: number,
  ) {}

  /** Keeps a connection whose exchange ended for the next request to its origin (or closes it when full). */
  park(c: C, keepAliveHintMs: number | null): void {
    let pool = this.pools.get(c.origin.key);
    if (!pool) this.pools.set(c.origin.key, (pool = []));
    if (pool.length >= this.maxPerOrigin || !c.socket) return void c.socket?.end();
    c.reused = true;
    c.idleSince = performance.now();
    // A second early: the server's own timer and ours must not race to the same instant.
    c.idleMs = keepAliveHintMs !== null ? Math.min(this.idleMs, Math.max(0, keepAliveHintMs - 1000)) : this.idleMs;
    pool.push(c);
    this.sweeper ??= setInterval(() => this.sweep(), Math.min(1000, Math.max(50, this.idleMs / 4)));
    this.sweeper.unref?.();
  }

  /** The most recently parked live connection to `key`; one past its idle time is closed, not handed out. */
  take(key: string): C | undefined {
    const pool = this.pools.get(key);
    if (!pool) return undefined;
    const now = performance.now();
    for (let c = pool.pop(); c; c = pool.pop()) {
      if (now - c.idleSince < c.idleMs) return c;
      c.socket?.end();
    }
    return undefined;
  }

  /** A connection that closed while parked leaves the pool. */
  remove(c: C): void {
    const pool = this.pools.get(c.origin.key);
    const i = pool ? pool.indexOf(c) : -1;
    if (i >= 0) pool!.splice(i, 1);
  }

  get size(): number {
    let n = 0;
    for (const pool of this.pools.values()) n += pool.length;
    return n;
  }

  close(): void {
    for (const pool of this.pools.values()) for (const c of pool.splice(0)) c.socket?.end();
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private sweep(): void {
    const now = performance.now();
    for (const pool of this.pools.values()) {
      for (let i = pool.length - 1; i >= 0; i--) {
        const c = pool[i]!;
        if (now - c.idleSince < c.idleMs) continue;
        pool.splice(i, 1);
        c.socket?.end();
      }
    }
    if (this.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
