// The memory governor collects only above its heap limit, and never more often than its minimum gap.
import { expect, test } from "bun:test";
import { startMemoryGovernor } from "../../../src/platform/memory-governor";

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(2);
  }
}

/** Live objects enough to hold the heap above 1 MB while a test runs. */
const ballast = () => Array.from({ length: 100_000 }, (_, i) => ({ i, s: `item ${i}` }));

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
