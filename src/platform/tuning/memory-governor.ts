// Keeps the JavaScript heap near its live size: JSC collects lazily, and resident memory follows the
// garbage, not the live data. When the heap passes what the last full collection left by `allowanceMb`,
// one full collection runs (at most once per `minGapMs`); once the process is idle, one more that also
// hands free memory back. The allowance is measured above the live heap, not as a ceiling, so that young
// garbage is left to the engine's cheap eden collections. What each choice measured: docs/tuning.md.
import { threadCpu, type CpuClock } from "./thread-cpu";
import { edenGC, fullGC } from "bun:jsc";

/**
 * Young (eden) collections paced by work done: each streamed exchange counts one, and `collect` runs every
 * `every` of them. The socket upstream client allocates only small objects, so without this the engine's
 * own eden collections come so rarely that the heap swings widely; JSON answers are not counted, because
 * pacing them cost more than it freed (docs/tuning.md).
 */
export function edenPacer(every: number, collect: () => void = edenGC): (streamed: boolean) => void {
  let n = 0;
  return (streamed) => {
    if (!streamed || ++n < every) return;
    n = 0;
    collect();
  };
}

export interface MemoryGovernor {
  stop(): void;
  /**
   * Checks made, collections run (`settles` of them the quiet-time ones) and their total duration, the
   * current period: for the shutdown log and tests.
   */
  stats(): { checks: number; collections: number; settles: number; totalMs: number; liveMb: number; everyMs: number };
}

/** The two collections the governor runs (replaceable in tests). */
export interface Collectors {
  /** Under load: a full collection that keeps compiled code. */
  underLoad(): void;
  /** Once quiet after collections under load: a full one that also hands free memory back. */
  settle(): void;
}

const ENGINE: Collectors = { underLoad: () => void fullGC(), settle: () => Bun.gc(true) };

/** Share of the time since the last check that the JavaScript thread ran, below which the process counts as idle. */
const IDLE_CPU_SHARE = 0.02;

/**
 * `heapUsed` (JSC's size after its last collection, eden or full), read through process.memoryUsage(),
 * which reads /proc/self/stat for `rss` at every call, only when a collection has run since the last read.
 * A weakly held sentinel, made anew at every check (`watch`), is gone once any collection has run after
 * the check that made it. One that survives a collection (promoted while its own check ran) hides that
 * period's collections only: the next check makes a new one.
 */
export class HeapAfterCollections {
  private sentinel: WeakRef<object> | null = null;
  private stale = true;
  private bytes = 0;

  constructor(private readonly read: () => number = () => process.memoryUsage().heapUsed) {}

  /** At every check: notes whether a collection has run since the previous one. */
  watch(): void {
    if (this.sentinel !== null && this.sentinel.deref() === undefined) this.stale = true;
    this.sentinel = sentinel();
  }

  /** The heap as of the last collection, read again only if one has run since the last read. */
  used(): number {
    if (this.stale) this.refresh();
    return this.bytes;
  }

  /** Reads it now (after the governor's own collection, which the sentinel would report next). */
  refresh(): number {
    this.bytes = this.read();
    this.stale = false;
    this.sentinel = sentinel();
    return this.bytes;
  }
}

/** Made outside the caller's frame, so that no stray reference to it stays on the stack. */
function sentinel(): WeakRef<object> {
  return new WeakRef({});
}

/** The longest gap between checks while idle, as a multiple of the base period. */
const IDLE_BACKOFF = 4;

/**
 * Counts the checks in a row that found the process idle: its clock (the JavaScript thread's CPU) ran
 * less than IDLE_CPU_SHARE of the time since the previous check.
 */
class IdleCount {
  private lastAt = performance.now();
  private lastCpu: number;
  /** Checks in a row that found the process idle. */
  private inARow = 0;

  constructor(private readonly cpu: CpuClock) {
    this.lastCpu = cpu();
  }

  check(now: number): number {
    const used = this.cpu();
    const idle = used - this.lastCpu < (now - this.lastAt) * 1000 * IDLE_CPU_SHARE;
    this.lastCpu = used;
    this.lastAt = now;
    return (this.inARow = idle ? this.inARow + 1 : 0);
  }

  /** The governor's own collection is not work: counted, it made the next check busy and put off the settling collection after a load. */
  skipOwnWork(): void {
    this.lastCpu = this.cpu();
  }
}

/** The periodic check (startMemoryGovernor): its state between checks and the collections it runs. */
class Governor implements MemoryGovernor {
  private readonly allowance: number;
  private readonly idle: IdleCount;
  private readonly heap = new HeapAfterCollections();
  private live = 0;
  private checks = 0;
  private collections = 0;
  private settles = 0;
  /** A collection under load ran since the last settling one. */
  private unsettled = false;
  private totalMs = 0;
  private last = -Infinity;
  private every: number;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    allowanceMb: number,
    private readonly checkEveryMs: number,
    private readonly minGapMs: number,
    private readonly gc: Collectors,
    cpu: CpuClock,
  ) {
    this.allowance = allowanceMb * 1024 * 1024;
    this.idle = new IdleCount(cpu);
    this.every = checkEveryMs;
    this.arm();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  stats() {
    const { checks, collections, settles } = this;
    return {
      checks,
      collections,
      settles,
      totalMs: Math.round(this.totalMs),
      liveMb: Math.round(this.live / 1024 / 1024),
      everyMs: this.every,
    };
  }

  // A property named as it is, so that profiles (bench/perf-js.ts) show the collections it forces under its name.
  private readonly governorCheck = () => {
    this.checks++;
    const now = performance.now();
    // Two idle checks in a row, each one base period apart, before the checks space out and before the
    // settling collection: after a load that comes ~200 ms later (the period doubling from the first idle
    // check put it ~300–800 ms after, by when the bench reads the "idle" memory).
    const quiet = this.idle.check(now) >= 2;
    this.heap.watch();
    this.every = quiet ? Math.min(this.every * 2, this.checkEveryMs * IDLE_BACKOFF) : this.checkEveryMs;
    if (this.unsettled && quiet && now - this.last >= this.minGapMs) {
      // Quiet after collections under load: one idle check alone also fired in short lulls mid-load.
      this.unsettled = false;
      this.settles++;
      this.collect(this.gc.settle, now);
    } else if (now - this.last >= this.minGapMs && this.heap.used() > this.live + this.allowance) {
      this.unsettled = true;
      this.collect(this.gc.underLoad, now);
    }
    this.arm();
  };

  private collect(run: () => void, now: number): void {
    run();
    this.live = this.heap.refresh();
    this.last = performance.now();
    this.totalMs += this.last - now;
    this.collections++;
    this.idle.skipOwnWork();
  }

  private arm(): void {
    this.timer = setTimeout(this.governorCheck, this.every);
    this.timer.unref();
  }
}

export function startMemoryGovernor(
  allowanceMb: number,
  checkEveryMs = 100,
  minGapMs = 250,
  gc: Collectors = ENGINE,
  cpu: CpuClock = threadCpu,
): MemoryGovernor {
  return new Governor(allowanceMb, checkEveryMs, minGapMs, gc, cpu);
}
