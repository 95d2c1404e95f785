// Keeps the JavaScript heap near its live size. JSC collects lazily: after a load the gateway's heap
// held ~80 MB of which ~9 MB was live (one full collection brought it back), and resident memory
// followed the garbage, not the live data. When the heap in use passes `limitMb`, one synchronous
// collection runs (Bun.gc(true): full collection and sweep, and freed memory handed back), at most
// once per `minGapMs`. Measured on the bench machine after 20,000 JSON requests and eight rounds of 128
// streams: peak RSS 119–125 MB without it, 107–113 MB at 24 MB / 500 ms, 95–99 MB at the defaults
// below, for ~15 ms per collection; CPU per request showed no difference in side-by-side runs (these
// collections replace some of the engine's own). Eden collections and
// Bun.gc(false) (a request the collector may defer) were tried and left RSS where it was.
// SWITCHYARD_HEAP_LIMIT_MB=0 turns this off (JSC's own heuristics alone).
export interface MemoryGovernor {
  stop(): void;
  /** Checks made, collections run and their total duration: for the shutdown log and tests. */
  stats(): { checks: number; collections: number; totalMs: number };
}

export function startMemoryGovernor(limitMb: number, checkEveryMs = 100, minGapMs = 250): MemoryGovernor {
  const limit = limitMb * 1024 * 1024;
  let checks = 0;
  let collections = 0;
  let totalMs = 0;
  let last = -Infinity;
  // A named function, so that profiles (bench/perf-js.ts) show the collections it forces under its name.
  const governorCheck = () => {
    checks++;
    const now = performance.now();
    if (now - last < minGapMs || process.memoryUsage().heapUsed <= limit) return;
    Bun.gc(true);
    last = performance.now();
    totalMs += last - now;
    collections++;
  };
  const timer = setInterval(governorCheck, checkEveryMs);
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    stats: () => ({ checks, collections, totalMs: Math.round(totalMs) }),
  };
}
