// Cross-instance cache invalidation over Redis pub/sub (channel `${REDIS_PREFIX}invalidate`). A message
// names what changed, never the new value: receivers re-read Postgres, the system of record. Pub/sub
// is at-most-once (a message sent while an instance is disconnected is lost), so every cache that
// listens here also re-reads the database on a timer; messages only make propagation fast.
import type { Logger } from "./logger";
import type { RedisConnection } from "./redis";

export type Invalidation =
  | { kind: "api_key"; workspaceId: string; id: string }
  | { kind: "routing_defaults"; workspaceId: string }
  | { kind: "byok_keys"; workspaceId: string }
  | { kind: "budgets"; workspaceId: string };

const KINDS = new Set<Invalidation["kind"]>(["api_key", "routing_defaults", "byok_keys", "budgets"]);

interface Envelope {
  origin: string;
  msg: Invalidation;
}

export class InvalidationBus {
  /** This process's identity: its own messages come back through the subscription and are skipped. */
  readonly origin = crypto.randomUUID();
  private readonly channel: string;
  private handler: ((msg: Invalidation) => Promise<void>) | undefined;
  private started = false;
  /** Counters for /readyz and tests. */
  readonly stats = { published: 0, received: 0, applyFailures: 0 };

  constructor(
    private readonly redis: RedisConnection,
    private readonly logger: Logger,
  ) {
    this.channel = redis.key("invalidate");
  }

  /** Subscribes (queued until Redis is reachable; re-subscribed after every reconnect). */
  start(handler: (msg: Invalidation) => Promise<void>): void {
    this.handler = handler;
    if (this.started) return;
    this.started = true;
    this.redis.subscriber.on("message", (channel: string, text: string) => {
      if (channel === this.channel) void this.receive(text);
    });
    this.redis.subscriber
      .subscribe(this.channel)
      .catch((err: unknown) => this.logger.warn("invalidation subscribe failed", { error: String(err) }));
  }

  /** Fire and forget: a lost message heals through the periodic reconciliation. */
  publish(msg: Invalidation): void {
    const envelope: Envelope = { origin: this.origin, msg };
    this.stats.published++;
    if (!this.redis.isUp()) {
      this.logger.debug("invalidation not published (Redis down); other instances reconcile on their timers", { kind: msg.kind });
      return;
    }
    this.redis.client.publish(this.channel, JSON.stringify(envelope)).catch((err: unknown) => {
      this.logger.warn("invalidation not published; other instances reconcile on their timers", { kind: msg.kind, error: String(err) });
    });
  }

  private async receive(text: string): Promise<void> {
    let env: Envelope;
    try {
      env = JSON.parse(text) as Envelope;
    } catch {
      return;
    }
    if (!env || env.origin === this.origin || !env.msg || !KINDS.has(env.msg.kind) || typeof env.msg.workspaceId !== "string") return;
    this.stats.received++;
    try {
      await this.handler?.(env.msg);
    } catch (err) {
      this.stats.applyFailures++;
      this.logger.warn("invalidation not applied; the periodic refresh will", { kind: env.msg.kind, error: String(err) });
    }
  }
}
