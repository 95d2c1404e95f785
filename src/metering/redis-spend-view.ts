// What this instance knows of each budget period's spend in Redis, so that the budget headers of a call
// need no read of their own: the last value Redis answered (to an admission script, a settle batch or a
// read), plus the costs this instance has queued or sent since. Each command is numbered when it is sent
// (one connection: Redis runs them in that order), so an answer handled late never overwrites a newer
// one, and a batch in flight counts only over values read before it ran. Other instances' spend shows
// once this instance next hears from Redis about that period, and a value older than freshMs is not used.
export class SpendView {
  private sent = 0;
  private readonly known = new Map<string, { spent: number; seq: number; at: number }>();
  private unsent = new Map<string, number>();
  /** Batches sent and not answered yet: their number → cost per period hash. */
  private readonly inFlight = new Map<number, Map<string, number>>();

  constructor(
    private readonly freshMs = 1_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Numbers a command sent now on the connection. */
  ticket(): number {
    if (++this.sent % 4096 === 0) this.sweep();
    return this.sent;
  }

  /** Redis answered `spent` for `key` to command `seq` (within one answer, in the order it ran). */
  observe(key: string, spent: number, seq: number): void {
    const cur = this.known.get(key);
    if (!cur || cur.seq <= seq) this.known.set(key, { spent, seq, at: this.clock() });
  }

  queue(key: string, cost: number): void {
    this.unsent.set(key, (this.unsent.get(key) ?? 0) + cost);
  }

  /** The queued costs leave in batch `seq`. */
  sending(seq: number): void {
    if (this.unsent.size) this.inFlight.set(seq, this.unsent);
    this.unsent = new Map();
  }

  /** Batch `seq` was answered (its new values observed) or failed (its costs never reached Redis). */
  answered(seq: number): void {
    this.inFlight.delete(seq);
  }

  /**
   * Queued for `key` and not sent yet. A read sent now is answered after every batch already sent, so
   * the two add up to the spend as if the queue were empty.
   */
  unsentSpend(key: string): number {
    return this.unsent.get(key) ?? 0;
  }

  /** The spend of `key` as this instance knows it; null when Redis has not answered within freshMs. */
  current(key: string): number | null {
    const v = this.known.get(key);
    if (!v || this.clock() - v.at > this.freshMs) return null;
    let spent = v.spent + this.unsentSpend(key);
    for (const [seq, costs] of this.inFlight) if (seq > v.seq) spent += costs.get(key) ?? 0;
    return spent;
  }

  /** Forgets stale values (period hashes change every day). */
  private sweep(): void {
    const now = this.clock();
    for (const [key, v] of this.known) if (now - v.at > this.freshMs) this.known.delete(key);
  }
}
