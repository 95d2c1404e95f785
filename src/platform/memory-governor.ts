// Keeps the JavaScript heap near its live size. JSC collects lazily: after a load the gateway's heap
// held ~80 MB of which ~9 MB was live (one full collection brought it back), and resident memory
// followed the garbage, not the live data (~110 MB under 128 streams). When the heap in use passes
// `limitMb`, one synchronous full collection runs, at most once per `minGapMs`. Measured
// (bench/README): peak RSS under 128 streams ~96 MB instead of ~110 MB, for collections of ~17 ms
// each, about one every two seconds under load. Eden collections (cheap, young objects only) and
// Bun.gc(false) (a request the collector may defer) were tried and left RSS where it was.
// SWITCHYARD_HEAP_LIMIT_MB=0 turns this off (JSC's own heuristics alone).
import { fullGC } from "bun:jsc";

export interface MemoryGovernor {
  stop(): void;
  /** Checks made, collections run and their total duration: for the shutdown log and tests. */
  stats(): { checks: number; collections: number; totalMs: number };
}

export function startMemoryGovernor(limitMb: number, checkEveryMs = 200, minGapMs = 500): MemoryGovernor {
  const limit = limitMb * 1024 * 1024;
  let checks = 0;
  let collections = 0;
  let totalMs = 0;
  let last = -Infinity;
  const timer = setInterval(() => {
    checks++;
    const now = performance.now();
    if (now - last < minGapMs || process.memoryUsage().heapUsed <= limit) return;
    fullGC();
    last = performance.now();
    totalMs += last - now;
    collections++;
  }, checkEveryMs);
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    stats: () => ({ checks, collections, totalMs: Math.round(totalMs) }),
  };
}
