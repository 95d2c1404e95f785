// Clocks of CPU time used, in µs, for the memory governor's idle test (memory-governor.ts): the calling
// thread's, and the whole process's where the thread's cannot be read.
import { readFileSync } from "node:fs";

/** The CPU time used so far, in µs: the JavaScript thread's (threadCpu) unless a test gives its own. */
export type CpuClock = () => number;

export const processCpu: CpuClock = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

/**
 * The calling thread's CPU time: Bun's process.threadCpuUsage() (one getrusage(RUSAGE_THREAD) call, ~2 µs)
 * where it has it; else /proc/thread-self/schedstat's first field (ns) on Linux; the process's elsewhere.
 * The schedstat read (open, read, close of a /proc file) cost ~14 µs in a loop and, in the gateway at 8
 * streams on a slow VM, ~1.2 % of the JavaScript thread's samples at ten checks a second (bench/NOTES.md).
 */
export const threadCpu: CpuClock = (() => {
  const usage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  const byCall = usage
    ? () => {
        const c = usage.call(process);
        return c.user + c.system;
      }
    : null;
  const path = "/proc/thread-self/schedstat";
  const byFile = () => Number(readFileSync(path, "latin1").split(" ", 1)[0]) / 1000;
  for (const read of byCall ? [byCall, byFile] : [byFile]) {
    try {
      // A running thread has run: a zero (a sandbox's stub /proc) would make the process look idle forever.
      const now = read();
      if (Number.isFinite(now) && now > 0) return read;
    } catch {
      // the next way, or the process's clock
    }
  }
  return processCpu;
})();
