// The Redis connections of shared mode (REDIS_URL): one for commands, one for pub/sub (a subscribed
// connection can run nothing else). Keys are prefixed explicitly with key() rather than ioredis'
// keyPrefix option, so Lua KEYS and pub/sub channel names follow one visible rule.
//
// Redis is an accelerator here, never a dependency for serving: commands fail fast while it is down
// (no offline queue, short command timeout) so callers fall back to their local state at once, and
// the clients reconnect forever in the background. Every up/down transition is logged loudly and
// counted; /readyz shows status().
import Redis from "ioredis";
import type { Logger } from "./logger";
import { raceDeadline } from "./deadline";

export interface RedisStatus {
  up: boolean;
  /** Epoch ms of the last transition (or of creation). */
  since: number;
  /** How many times the connection went down since start-up: the "Redis lost" metric. */
  outages: number;
  lastError: string | null;
  /** The pub/sub connection is up: invalidation messages from other instances arrive. */
  subscribed: boolean;
}

export interface RedisConnectionOptions {
  /** Per-command deadline; a hung Redis must not stall the hot path. Default 500 ms. */
  commandTimeoutMs?: number;
  /** How long start() waits for the first connection before serving with local fallbacks. Default 2 s. */
  startWaitMs?: number;
}

export class RedisConnection {
  readonly client: Redis;
  readonly subscriber: Redis;
  private state: RedisStatus;
  private readonly listeners = new Set<(up: boolean) => void>();
  private closed = false;

  constructor(
    url: string,
    readonly prefix: string,
    private readonly logger: Logger,
    private readonly opts: RedisConnectionOptions = {},
  ) {
    const retryStrategy = (attempt: number) => Math.min(attempt * 200, 2_000);
    // The URL's database number (redis://host:6379/3) is parsed by ioredis itself.
    this.client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2_000,
      commandTimeout: opts.commandTimeoutMs ?? 500,
      retryStrategy,
    });
    // The subscriber queues SUBSCRIBE until connected and re-subscribes after each reconnect.
    this.subscriber = new Redis(url, {
      lazyConnect: true,
      connectTimeout: 2_000,
      autoResubscribe: true,
      maxRetriesPerRequest: null,
      retryStrategy,
    });
    this.state = { up: false, since: Date.now(), outages: 0, lastError: null, subscribed: false };
    this.client.on("ready", () => this.transition(true));
    this.client.on("close", () => this.transition(false));
    this.client.on("error", (err: Error) => {
      this.state.lastError = err.message;
    });
    this.subscriber.on("error", () => {});
    this.subscriber.on("ready", () => (this.state.subscribed = true));
    this.subscriber.on("close", () => (this.state.subscribed = false));
  }

  /** `${REDIS_PREFIX}${parts joined by ":"}`. */
  key(...parts: string[]): string {
    return this.prefix + parts.join(":");
  }

  /**
   * A Lua script run atomically by Redis (EVALSHA, falling back to EVAL once per connection).
   * Keys are passed as given: callers build them with key().
   */
  defineScript<T>(name: string, lua: string): (keys: string[], args: (string | number)[]) => Promise<T> {
    this.client.defineCommand(name, { lua });
    const fn = (this.client as unknown as Record<string, (...a: (string | number)[]) => Promise<T>>)[name]!;
    return (keys, args) => fn.call(this.client, keys.length, ...keys, ...args);
  }

  isUp(): boolean {
    return this.state.up;
  }

  status(): RedisStatus {
    return { ...this.state };
  }

  /** Called on every up/down transition (after logging). Returns an unsubscribe function. */
  onChange(listener: (up: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts both connections; waits at most startWaitMs for them, then keeps reconnecting in the background. Never throws. */
  async start(): Promise<void> {
    const ready = (r: Redis) => new Promise<void>((resolve) => r.once("ready", () => resolve()));
    const bothReady = Promise.all([ready(this.client), ready(this.subscriber)]);
    // A refused first attempt ends the wait early (a short grace lets its error event land first).
    const refused = this.client.connect().then(
      () => bothReady,
      () => Bun.sleep(50),
    );
    this.subscriber.connect().catch(() => undefined);
    await raceDeadline([bothReady, refused], this.opts.startWaitMs ?? 2_000);
    if (!this.state.up) {
      this.logger.error("Redis unreachable at start-up: serving with per-instance limits and counters until it connects", {
        error: this.state.lastError,
      });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await Promise.all([quit(this.client), quit(this.subscriber)]);
  }

  private transition(up: boolean): void {
    if (this.state.up === up || this.closed) return;
    this.state = {
      ...this.state,
      up,
      since: Date.now(),
      outages: this.state.outages + (up ? 0 : 1),
      lastError: up ? null : this.state.lastError,
    };
    if (up) this.logger.warn("Redis connected: shared rate limits, budget counters and locks are active", { prefix: this.prefix });
    else {
      this.logger.error("REDIS DOWN: rate limits, budget counters and idempotency locks are per instance until it returns", {
        error: this.state.lastError ?? "connection closed",
        outages: this.state.outages,
      });
    }
    for (const l of this.listeners) {
      try {
        l(up);
      } catch (err) {
        this.logger.error("Redis transition listener failed", { error: String(err) });
      }
    }
  }
}

async function quit(r: Redis): Promise<void> {
  if (r.status === "ready") await r.quit().catch(() => r.disconnect());
  else r.disconnect();
}
