// The ends of admitted calls in shared mode (budget settlements and releases, credit hold releases)
// are fire-and-forget, so they are queued and sent together: one SETTLE script for every call that
// ended within the window (or once maxOps are queued). Waiting only delays freeing headroom: a
// reservation's end and its cost are applied in one step, and a credit hold outliving its call just
// holds a little longer. A failed batch is logged and its entries expire by their TTL; stop() drains.
import type { Logger } from "../platform/logger";
import type { RedisConnection } from "../platform/redis";
import { SETTLE } from "./redis-budget-scripts";
import type { SpendView } from "./redis-spend-view";

/** An entry ended (HDEL key field) or a cost added to a seeded period's spend (HINCRBY key spent cost). */
export type SettleOp = { end: string; field: string } | { spend: string; cost: number };

export interface SettleQueueOptions {
  /** How long the first queued end waits for others, ms. Default 5. */
  windowMs?: number;
  /** A batch is sent at once when it has this many operations. Default 512. */
  maxOps?: number;
}

export class SettleQueue {
  private readonly script: (keys: string[], args: (string | number)[]) => Promise<number[]>;
  private keys = new Map<string, number>();
  private args: (string | number)[] = [];
  private ids: string[] = [];
  private waiters: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** Batches sent (the round trips the ends took). */
  batches = 0;

  constructor(
    redis: RedisConnection,
    private readonly logger: Logger,
    /** Told of the costs queued, sent and applied (the budget headers read it). */
    private readonly view: SpendView,
    private readonly opts: SettleQueueOptions = {},
  ) {
    this.script = redis.defineScript("switchyardSettleBatch", SETTLE);
  }

  /** Queues one call's ends; resolves once they were sent (or failed and were logged). Never rejects. */
  push(id: string, ops: SettleOp[]): Promise<void> {
    if (ops.length === 0) return Promise.resolve();
    for (const op of ops) {
      const key = "end" in op ? op.end : op.spend;
      let i = this.keys.get(key);
      if (i === undefined) this.keys.set(key, (i = this.keys.size + 1));
      if ("end" in op) this.args.push("d", i, op.field);
      else {
        this.args.push("i", i, op.cost);
        this.view.queue(op.spend, op.cost);
      }
    }
    this.ids.push(id);
    const done = new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.args.length >= (this.opts.maxOps ?? 512) * 3) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.opts.windowMs ?? 5);
      this.timer.unref?.();
    }
    return done;
  }

  /** Sends what is queued now and waits for every batch in flight. */
  async drain(): Promise<void> {
    this.flush();
    await Promise.all([...this.inFlight]);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.ids.length === 0) return;
    const keys = [...this.keys.keys()];
    const { args, ids, waiters } = this;
    this.keys = new Map();
    this.args = [];
    this.ids = [];
    this.waiters = [];
    this.batches++;
    const seq = this.view.ticket();
    this.view.sending(seq);
    const sent = this.script(keys, args)
      .then(
        (spent) => {
          for (let j = 0; j < spent.length; j += 2) this.view.observe(keys[spent[j]! - 1]!, spent[j + 1]!, seq);
        },
        (err) => {
          // The reservations and holds expire on their own; the costs are in the request records (Postgres).
          this.logger.error("budget settlements and credit hold releases not applied in Redis", {
            error: String(err),
            calls: ids.length,
            ids: ids.slice(0, 10),
          });
        },
      )
      .finally(() => {
        this.view.answered(seq);
        this.inFlight.delete(sent);
        for (const w of waiters) w();
      });
    this.inFlight.add(sent);
  }
}
