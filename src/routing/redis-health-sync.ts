// Shared mode (REDIS_URL): every instance's route health samples reach the others over Redis pub/sub
// (channel `${REDIS_PREFIX}route-health`), so N gateways learn one set of estimates and a route failing
// on one instance opens its circuit on all. The hot path only writes into a bounded ring buffer (the
// oldest sample is dropped when it is full); a timer that never keeps the process alive flushes it in
// batches. Each batch is also appended to a short capped log (`${REDIS_PREFIX}route-health:log`) that an
// instance replays when it connects, so one that joins or comes back after an outage starts from what
// the fleet saw recently. Redis down: samples wait in the buffer (bounded) and each instance learns
// from its own traffic, as without Redis.
import type { Logger } from "../platform/logger";
import type { RedisConnection } from "../platform/redis";
import type { FailureSample, HealthListener, HealthStore, SuccessSample } from "./health";
import {
  decodeSample,
  encodeFailure,
  encodeFirstToken,
  encodeSuccess,
  MAX_SAMPLE_AGE_MS,
  parseBatch,
  type WireBatch,
  type WireSample,
} from "./health-wire";

export interface HealthSyncOptions {
  /** How long a sample may wait in the buffer before its batch is published. Default 100 ms. */
  flushEveryMs?: number;
  /** Samples per published batch; a buffer this full is flushed on the next turn. Default 256. */
  batchSize?: number;
  /** Samples the buffer holds while Redis is slow or down. Default 4096. */
  capacity?: number;
  /** Batches kept in the warm-start log (0: no log, no replay). Default 100. */
  logBatches?: number;
  /** Batches older than this are neither kept in the log nor replayed. Default 10 minutes. */
  logMaxAgeMs?: number;
  /** Epoch ms; injectable for tests. */
  clock?: () => number;
}

export interface HealthSyncStats {
  batchesPublished: number;
  samplesPublished: number;
  /** Samples dropped: the buffer was full, or they waited longer than a sample may claim. */
  samplesDropped: number;
  /** Batches Redis refused or did not answer in time (lost: pub/sub is at most once). */
  publishFailures: number;
  batchesReceived: number;
  samplesApplied: number;
  /** Samples applied from the warm-start log rather than live. */
  samplesReplayed: number;
  malformed: number;
}

export class RedisHealthSync {
  /** This process's identity on the channel (its own batches come back and are skipped). */
  readonly origin = crypto.randomUUID();
  readonly stats: HealthSyncStats = {
    batchesPublished: 0,
    samplesPublished: 0,
    samplesDropped: 0,
    publishFailures: 0,
    batchesReceived: 0,
    samplesApplied: 0,
    samplesReplayed: 0,
    malformed: 0,
  };
  private readonly channel: string;
  private readonly logKey: string;
  private readonly flushEveryMs: number;
  private readonly batchSize: number;
  private readonly capacity: number;
  private readonly logBatches: number;
  private readonly logMaxAgeMs: number;
  private readonly clock: () => number;
  // The ring buffer, as parallel arrays so a sample costs no allocation of its own.
  private readonly kinds: Uint8Array;
  private readonly keys: string[];
  private readonly samples: (SuccessSample | FailureSample | undefined)[];
  private readonly times: Float64Array;
  private head = 0;
  private size = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerSoon = false;
  private seq = 0;
  /** The highest batch sequence applied per origin, with when: a replayed batch is applied once. */
  private readonly seen = new Map<string, { q: number; at: number }>();
  /** Set while peer samples are applied: a store that reported them back would not loop them. */
  private applying = false;
  private started = false;
  private warnedAt = Number.NEGATIVE_INFINITY;
  private unsubscribe: (() => void) | undefined;

  readonly listener: HealthListener = {
    success: (key, sample, now) => this.push(0, key, sample, now),
    failure: (key, sample, now) => this.push(1, key, sample, now),
    firstToken: (key, ttftMs, now) => this.push(2, key, { latencyMs: Number.NaN, ttftMs }, now),
  };

  constructor(
    private readonly redis: RedisConnection,
    private readonly health: HealthStore,
    private readonly logger: Logger,
    o: HealthSyncOptions = {},
  ) {
    this.channel = redis.key("route-health");
    this.logKey = redis.key("route-health", "log");
    this.flushEveryMs = o.flushEveryMs ?? 100;
    this.batchSize = o.batchSize ?? 256;
    this.capacity = Math.max(o.capacity ?? 4096, this.batchSize);
    this.logBatches = o.logBatches ?? 100;
    this.logMaxAgeMs = o.logMaxAgeMs ?? 10 * 60_000;
    this.clock = o.clock ?? Date.now;
    this.kinds = new Uint8Array(this.capacity);
    this.keys = new Array<string>(this.capacity);
    this.samples = new Array<SuccessSample | FailureSample | undefined>(this.capacity);
    this.times = new Float64Array(this.capacity);
  }

  /** Attaches to the store and subscribes (queued until Redis is reachable; re-subscribed after reconnects). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.health.setListener(this.listener);
    this.redis.subscriber.on("message", this.onMessage);
    this.redis.subscriber.on("ready", this.onSubscriberReady);
    this.redis.subscriber
      .subscribe(this.channel)
      .catch((err: unknown) => this.logger.warn("route health subscribe failed", { error: String(err) }));
    // Every (re)connection: publish what waited, and catch up on what the fleet saw meanwhile.
    this.unsubscribe = this.redis.onChange((up) => {
      if (!up) return;
      this.flush();
      void this.catchUp();
    });
    if (this.redis.isUp()) void this.catchUp();
  }

  /** Detaches from the store and the connection, publishing what is buffered if Redis is up. */
  stop(): void {
    if (!this.started) return;
    this.started = false;
    this.health.setListener(null);
    this.unsubscribe?.();
    this.redis.subscriber.off("message", this.onMessage);
    this.redis.subscriber.off("ready", this.onSubscriberReady);
    this.flush();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly onMessage = (channel: string, text: string): void => {
    if (channel === this.channel) this.receive(text);
  };

  // The two connections come back separately: a batch published while this one was not yet re-subscribed
  // is in the log, so reading it again once the subscription is back loses nothing (batches apply once).
  private readonly onSubscriberReady = (): void => {
    if (this.redis.isUp()) void this.catchUp();
  };

  /** Samples waiting to be published. */
  buffered(): number {
    return this.size;
  }

  /** The hot path: O(1), no I/O, no allocation. */
  private push(kind: 0 | 1 | 2, key: string, sample: SuccessSample | FailureSample, now: number): void {
    if (this.applying || !this.started) return;
    let i: number;
    if (this.size === this.capacity) {
      i = this.head;
      this.head = (this.head + 1) % this.capacity;
      this.stats.samplesDropped++;
    } else {
      i = (this.head + this.size) % this.capacity;
      this.size++;
    }
    this.kinds[i] = kind;
    this.keys[i] = key;
    this.samples[i] = sample;
    this.times[i] = now;
    if (this.size >= this.batchSize) this.arm(0);
    else if (this.timer === undefined) this.arm(this.flushEveryMs);
  }

  private arm(ms: number): void {
    if (this.timer !== undefined) {
      if (ms > 0 || this.timerSoon) return;
      clearTimeout(this.timer);
    }
    this.timerSoon = ms === 0;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, ms);
    this.timer.unref();
  }

  /** Publishes the buffer in batches; while Redis is down the samples stay (the reconnection flushes them). */
  flush(): void {
    if (this.size === 0 || !this.redis.isUp()) return;
    const now = this.clock();
    while (this.size > 0) {
      const batch: WireSample[] = [];
      while (this.size > 0 && batch.length < this.batchSize) {
        const i = this.head;
        const age = Math.max(0, now - this.times[i]!);
        if (age > MAX_SAMPLE_AGE_MS) this.stats.samplesDropped++;
        else if (this.kinds[i] === 0) batch.push(encodeSuccess(this.keys[i]!, age, this.samples[i] as SuccessSample));
        else if (this.kinds[i] === 2) batch.push(encodeFirstToken(this.keys[i]!, age, this.samples[i] as SuccessSample));
        else batch.push(encodeFailure(this.keys[i]!, age, this.samples[i] as FailureSample));
        this.samples[i] = undefined; // let the sample be collected
        this.head = (this.head + 1) % this.capacity;
        this.size--;
      }
      if (batch.length > 0) this.publish({ o: this.origin, q: this.seq++, t: now, s: batch });
    }
  }

  private publish(batch: WireBatch): void {
    const text = JSON.stringify(batch);
    this.stats.batchesPublished++;
    this.stats.samplesPublished += batch.s.length;
    const onError = (err: unknown) => {
      this.stats.publishFailures++;
      // A slow Redis fails every batch (ten a second): one line per 10 s says so, the count says how many.
      const now = this.clock();
      if (now - this.warnedAt < 10_000) return;
      this.warnedAt = now;
      this.logger.warn("route health samples not published; instances learn locally", {
        error: String(err),
        failures: this.stats.publishFailures,
      });
    };
    if (this.logBatches === 0) {
      this.redis.client.publish(this.channel, text).catch(onError);
      return;
    }
    this.redis.client
      .multi()
      .publish(this.channel, text)
      .rpush(this.logKey, text)
      .ltrim(this.logKey, -this.logBatches, -1)
      .pexpire(this.logKey, this.logMaxAgeMs)
      .exec()
      .catch(onError);
  }

  private receive(text: string): void {
    const batch = parseBatch(text);
    if (batch === null) {
      this.stats.malformed++;
      return;
    }
    if (batch.o === this.origin) return;
    this.stats.samplesApplied += this.apply(batch, 0);
  }

  /** The fleet's recent batches from the log, oldest first, each placed at its age on this clock. */
  async catchUp(): Promise<void> {
    if (this.logBatches === 0 || !this.redis.isUp()) return;
    let texts: string[];
    try {
      texts = await this.redis.client.lrange(this.logKey, 0, -1);
    } catch (err) {
      this.logger.warn("route health log not read; this instance learns from live samples", { error: String(err) });
      return;
    }
    const now = this.clock();
    this.forgetOrigins(now);
    for (const text of texts) {
      const batch = parseBatch(text);
      if (batch === null || batch.o === this.origin) continue;
      const batchAge = now - batch.t;
      if (batchAge > this.logMaxAgeMs) continue;
      this.stats.samplesReplayed += this.apply(batch, Math.max(0, batchAge));
    }
  }

  /** Instances not heard from for longer than the log keeps batches (restarted ones get a new origin). */
  private forgetOrigins(now: number): void {
    for (const [origin, s] of this.seen) if (now - s.at > this.logMaxAgeMs) this.seen.delete(origin);
  }

  /** Applies a peer batch once (by origin and sequence); returns how many samples it applied. */
  private apply(batch: WireBatch, extraAgeMs: number): number {
    const now = this.clock();
    const last = this.seen.get(batch.o);
    if (last !== undefined && batch.q <= last.q) return 0;
    if (last === undefined && this.seen.size >= 1_000) this.forgetOrigins(now);
    this.seen.set(batch.o, { q: batch.q, at: now });
    this.stats.batchesReceived++;
    let applied = 0;
    this.applying = true;
    try {
      for (const w of batch.s) {
        const d = decodeSample(w);
        if (d === null) {
          this.stats.malformed++;
          continue;
        }
        const at = now - extraAgeMs - d.age;
        if (d.s.kind === 0) this.health.recordSuccess(d.key, d.s.sample, at, true);
        else if (d.s.kind === 2) this.health.recordFirstToken(d.key, d.s.sample.ttftMs!, at, true);
        else this.health.recordFailure(d.key, d.s.sample, at, true);
        applied++;
      }
    } catch (err) {
      this.logger.warn("route health batch not applied", { error: String(err) });
    } finally {
      this.applying = false;
    }
    return applied;
  }
}
