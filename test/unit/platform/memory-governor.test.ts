// The memory governor collects only when the heap passes the live heap (what its last collection left)
// by its allowance, and never more often than its minimum gap; once the heap is quiet after such
// collections, one settling collection follows.
import { expect, test } from "bun:test";
import { fullGC } from "bun:jsc";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HeapAfterCollections, edenPacer, startMemoryGovernor } from "../../../src/platform/tuning/memory-governor";
import { processCpu, threadCpu } from "../../../src/platform/tuning/thread-cpu";

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(2);
  }
}

/** Live objects enough to hold the heap above 1 MB while a test runs. */
const ballast = (n = 100_000) => Array.from({ length: n }, (_, i) => ({ i, s: `item ${i}` }));

test("a heap above the limit is collected", async () => {
  const held = ballast();
  const g = startMemoryGovernor(1, 5, 0);
  try {
    await until(() => g.stats().collections >= 1);
    expect(held.length).toBe(100_000);
  } finally {
    g.stop();
  }
});

test("a heap below the limit is left to the engine", async () => {
  const g = startMemoryGovernor(1_000_000, 5, 0);
  try {
    await until(() => g.stats().checks >= 5);
    expect(g.stats().collections).toBe(0);
  } finally {
    g.stop();
  }
});

test("collections are at least the minimum gap apart", async () => {
  const held = ballast();
  const g = startMemoryGovernor(1, 5, 60_000);
  try {
    await until(() => g.stats().checks >= 10);
    expect(g.stats().collections).toBe(1);
    expect(held.length).toBe(100_000);
  } finally {
    g.stop();
  }
});

test("a live heap larger than the allowance is not collected again and again: the threshold is live + allowance", async () => {
  const held = ballast(300_000);
  const heapMb = process.memoryUsage().heapUsed / 1024 / 1024;
  // An allowance well below the live heap: a fixed ceiling of this size would collect at every check.
  const allowance = Math.max(1, Math.floor(heapMb / 4));
  const g = startMemoryGovernor(allowance, 5, 0);
  try {
    await until(() => g.stats().collections >= 1);
    const after = g.stats().checks;
    await until(() => g.stats().checks >= after + 20);
    // One collection for the heap over the threshold, and at most the settling one once it was quiet.
    expect(g.stats().collections - g.stats().settles).toBe(1);
    expect(g.stats().settles).toBeLessThanOrEqual(1);
    expect(g.stats().liveMb).toBeGreaterThan(allowance);
    expect(held.length).toBe(300_000);
  } finally {
    g.stop();
  }
});

test("the heap after collections is read (process.memoryUsage(), which opens /proc/self/stat) only when a collection has run since the last read", async () => {
  let reads = 0;
  const heap = new HeapAfterCollections(() => ++reads);
  expect(heap.used()).toBe(1);
  // Checks with no collection between them read nothing.
  heap.watch();
  heap.watch();
  expect(heap.used()).toBe(1);
  // A collection after a check: the next check notes it and the next use reads again (a sentinel
  // that a stray stack slot kept alive only delays this to the check after).
  for (let i = 0; i < 5 && reads === 1; i++) {
    await Bun.sleep(1);
    fullGC();
    heap.watch();
    heap.used();
  }
  expect(reads).toBe(2);
  expect(heap.used()).toBe(2);
  // After the governor's own collection it reads at once, and not again for that collection.
  expect(heap.refresh()).toBe(3);
  heap.watch();
  expect(heap.used()).toBe(3);
});

/** A CPU clock for the governor that the test drives: idle (standing still) until `work()` is called. */
function fakeCpu() {
  let us = 0;
  let busy = false;
  return {
    clock: () => (busy ? (us += 1_000_000) : us),
    work: () => (busy = true),
  };
}

test("an idle process is checked less and less often, down to one check per 4 periods, and at every period again once it works", async () => {
  const cpu = fakeCpu();
  const g = startMemoryGovernor(1_000_000, 5, 0, undefined, cpu.clock);
  try {
    await until(() => g.stats().everyMs === 20);
    cpu.work();
    await until(() => g.stats().everyMs === 5);
  } finally {
    g.stop();
  }
});

test("idleness is read from the JavaScript thread's CPU time, not from the heap, whose size moves in steps under a steady load", async () => {
  // The real clock: a process that keeps a core busy between checks is never idle, however its heap moves.
  const g = startMemoryGovernor(1_000_000, 5, 0);
  let sink = 0;
  try {
    const end = performance.now() + 300;
    while (performance.now() < end) {
      for (let i = 0; i < 10_000; i++) sink += i;
      await Bun.sleep(0);
    }
    expect(g.stats().checks).toBeGreaterThanOrEqual(20);
    expect(g.stats().everyMs).toBe(5);
  } finally {
    g.stop();
  }
  expect(sink).toBeGreaterThan(0);
});

test("the governor's default clock is the JavaScript thread's CPU time: another thread's work (the allocator's scavenger, the collector's threads) does not advance it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "governor-"));
  const script = join(dir, "burn.js");
  writeFileSync(
    script,
    "postMessage('busy'); const end = performance.now() + 600; let x = 0; while (performance.now() < end) x++; postMessage(x);",
  );
  const worker = new Worker(script);
  const messages: unknown[] = [];
  worker.onmessage = (e) => messages.push(e.data);
  try {
    await until(() => messages.length >= 1);
    const thread = threadCpu();
    const whole = processCpu();
    await Bun.sleep(300);
    expect(messages.length).toBe(1); // the worker was still burning throughout
    expect(processCpu() - whole).toBeGreaterThan(200_000);
    // This thread slept: whatever timers woke it, far from the worker's 300 ms.
    expect(threadCpu() - thread).toBeLessThan(100_000);
  } finally {
    worker.terminate();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("after collections under load (compiled code kept), a process idle for two checks in a row gets one settling collection (memory handed back)", async () => {
  const held = ballast();
  const calls: string[] = [];
  const g = startMemoryGovernor(
    1,
    5,
    0,
    {
      underLoad: () => {
        calls.push("load");
        fullGC();
      },
      settle: () => {
        calls.push("settle");
        Bun.gc(true);
      },
    },
    fakeCpu().clock,
  );
  try {
    await until(() => g.stats().settles >= 1);
    expect(calls.slice(0, 2)).toEqual(["load", "settle"]);
    // Never two settling collections without a collection under load between them.
    expect(calls.join(",")).not.toContain("settle,settle");
    expect(g.stats().collections).toBe(calls.length);
    expect(held.length).toBe(100_000);
  } finally {
    g.stop();
  }
});

test("an idle process that was never collected under load gets no settling collection", async () => {
  const g = startMemoryGovernor(1_000_000, 5, 0, undefined, fakeCpu().clock);
  try {
    await until(() => g.stats().everyMs === 20);
    await until(() => g.stats().checks >= 10);
    expect(g.stats()).toMatchObject({ collections: 0, settles: 0 });
  } finally {
    g.stop();
  }
});

test("the eden pacer collects after every n-th streamed exchange, and not between", () => {
  let collections = 0;
  const tick = edenPacer(3, () => collections++);
  const seen: number[] = [];
  for (let i = 0; i < 7; i++) {
    tick(true);
    seen.push(collections);
  }
  expect(seen).toEqual([0, 0, 1, 1, 1, 2, 2]);
});

test("the eden pacer does not count whole answers: JSON exchanges never bring a collection", () => {
  let collections = 0;
  const tick = edenPacer(2, () => collections++);
  const seen: number[] = [];
  for (const streamed of [false, false, false, true, false, true, false]) {
    tick(streamed);
    seen.push(collections);
  }
  expect(seen).toEqual([0, 0, 0, 0, 0, 1, 1]);
});
