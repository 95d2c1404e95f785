// Keeps the JavaScript heap near its live size. JSC collects lazily: after a load the gateway's heap
// held ~80 MB of which ~9 MB was live (one full collection brought it back), and resident memory
// followed the garbage, not the live data. When the heap passes the live heap by `allowanceMb`, one
// synchronous full collection runs (which kind: further down), at most once per `minGapMs`. The live
// heap is what the last such collection left (before the first one: nothing, so the first threshold is
// the allowance itself).
//
// What the check reads: `heapUsed` is JSC's size after its last collection, eden or full (Bun reports
// Heap::sizeAfterLastEdenCollection there); it does not grow with allocation between collections (measured:
// 3 → 9 MB of capacity allocated while it stayed at 0.1 MB, then it jumped at the next eden collection).
// So the rule fires when objects promoted by eden collections, old garbage only a full collection frees,
// pile up past the allowance: young garbage is left to the eden collections. `heapTotal` (the blocks
// held) was tried as the signal and is no better: it stops growing once the heap has its blocks, and
// eden collections keyed on it did not change JSC's own eden cadence (session notes, 2026-11-26).
//
// Why above the live heap, not a fixed ceiling: the gateway's live heap settles at ~12 MB under load,
// and JSC's own eden (young) collections run every ~8 MB allocated. A fixed 16 MB ceiling left 4 MB of
// room, so the governor fired on young garbage that an eden collection (~1 ms) would have freed, and
// ran a full one (~10 ms) instead: 35 full collections per 4,000 streams. Measured side by side (three
// gateways per side, 32 streams): room for 16 MB of garbage above the live heap ~8 % less CPU per stream;
// peak RSS under 128 streams stays under 100 MB (bench). The allowance was 8 MB once the socket upstream
// client became the default (its heap grows more between collections; 8 cost no CPU per JSON request
// against 16, side by side), and is 3 MB now: under rounds of 128 streams the resident memory
// is a sawtooth whose teeth are this allowance (old-space garbage, promoted by eden collections while
// 128 streams were in flight, climbing until the governor's full collection), and with 8 the peak under
// 128 streams read 94.5–103.3 MB (mean 99.4, four runs of bench/probes/smaps.ts), with 3 89.1–101.3 (mean
// 92.9, seven runs), for about twice the collections (34 against 15 in that probe, ~27 ms each) and, side
// by side, 1.01× the CPU per JSON request at 32 connections, 1.02× at 128, 0.99× per stream at 128 and
// 0.97× at 8 (paired medians; within the rounds' noise). SWITCHYARD_HEAP_LIMIT_MB=0 turns this off (JSC's
// own heuristics alone).
//
// Which collection: under load, bun:jsc's fullGC() (a synchronous full collection that keeps the compiled
// code); once the heap goes quiet after such collections (the checks back off fully, below), one Bun.gc(true),
// which also throws away unlinked bytecode and hands the allocator's free memory back to the system. Each
// governor collection was once Bun.gc(true); the split costs 0.98× the CPU per JSON request at
// 32 connections (quartiles 0.96–0.99), 1.00× per stream at 128 and 0.97× at 8 side by side, ~20 % less
// time in collections (~21 ms each against ~27), the same peak under 128 streams (mean 95.0 against 94.9
// MB, four runs each of bench/probes/smaps.ts), and ~5 MB less resident memory once idle. fullGC() alone
// left the resident memory after a load ~8 MB higher: mimalloc returns freed pages only as it works.
//
// What a check costs: Bun's process.memoryUsage() opens and reads /proc/self/stat for `rss` at every
// call, and a timer that wakes an idle process costs ~80–170 µs on the bench VM. Its `heapUsed` is JSC's
// size after the last collection (O(1)), which changes only when a collection runs; so a check reads it
// again only when one has run since the last read (HeapAfterCollections below): most checks read nothing.
// A check once read bun:jsc's heapSize() (JSC's Heap::size, which walks every block:
// 56–372 µs a call in a gateway under load) and, above the threshold (nearly always under load, young
// garbage included), process.memoryUsage() (117–412 µs): ~200–800 µs per check, ten checks a second, ~3 %
// of the gateway's CPU at 8 streams (bench/probes/governor-check.ts); side by side 0.94 per stream at 8.
// And while the process is idle (its JavaScript thread ran less than 2 % of the time since the last
// check, twice in a row) the checks space out, doubling up to 4× the base period, and come back to it
// as soon as it works again. Idleness was read from the heap once (less than 64 KB of growth between checks), but
// heapSize() moves in steps, not with each allocation: it stood still for two to six checks at a time under
// a steady load (a probe allocating ~1 MB per 100 ms saw 0 KB, 0, 0, then 1.4 MB), so under 8 streams the
// governor sat at the 4× period most of the time and ran half of its collections as settling ones
// (Bun.gc(true), which hands memory back to be faulted in again) in the middle of the load: 2 of 4 per 2,000
// streams, 94 checks in ~30 s. The JavaScript thread's own CPU time (thread-cpu.ts, ~2 µs a
// read) tells a working process from an idle one whatever its heap does; the whole process's would not:
// after a load the allocator's scavenger (7–9 ms a pass, once a second) and the collector's threads kept it
// above 2 % in one check of two or three, and the settling collection came 1–2 s late or not at all.
// Measured on the bench VM (bench/probes/idle-cpu.ts): an idle gateway spent 4.5–5.8 ms of CPU per second,
// now ~3.5 (2.5 with a 16× back-off, but a governor that slow to wake let the peak under a 128-connection
// JSON load that follows a pause rise from ~120 to ~132 MB: 4× kept it at 117–118). Under load: the same,
// 0.99 side by side at 8 streams.
import { threadCpu, type CpuClock } from "./thread-cpu";
import { edenGC, fullGC } from "bun:jsc";

/**
 * Young (eden) collections paced by work done: each call adds its `weight`, and `collect` runs whenever
 * `every` has been reached. For the socket upstream client (upstream-fetch.ts), which allocates small
 * objects only: JSC then runs its own eden collections every ~20 MB allocated and the heap, whose blocks
 * it keeps until a full collection, swings 25–47 MB. Fetch's 64 KB read buffers count as extra heap
 * memory and bring an eden every ~4 MB; one eden per 100 streamed exchanges (~4 MB of a gateway's
 * garbage then) restored that cadence. Measured (bench-like run, 10 × 256 streams at 128): peak RSS 127.5 →
 * 109 MB, and 98.9 MB with SWITCHYARD_HEAP_LIMIT_MB=8; side by side at 32 streams the sockets gateway
 * so paced (8 MB) still cost 0.87× the fetch gateway's CPU per stream. Streams leave less garbage since
 * (plain chunks pass through unparsed): the gateway now paces one per 250 (EDEN_EVERY, deps.ts). Only
 * streamed exchanges count: an eden costs ~2 ms however little it frees (GC log: ~250 KB visited in a
 * ~20 MB heap), and counting whole (JSON) answers too, even weighted a third of a stream, ran one every
 * 300 requests: ~9 µs per JSON request and 11 % of the JS thread's profile (bench notes, 2026-11-26
 * evening). JSON garbage is left to JSC's own cadence. (`heapUsed` cannot pace this: it moves only at
 * collections, see the note at the top.)
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
      // Quiet after collections under load: two checks in a row found the process idle (one was not
      // enough when the heap's growth was the sign: 6 of 15 collections during 5,000 streams at 128 were
      // settling ones, ~27 ms each, with one quiet check; see the note at the top on that sign).
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
