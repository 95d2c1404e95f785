// The bench reports steal (the hypervisor's share of the machine's CPU time) while its loads ran, read
// from /proc/stat's aggregate cpu line: a busy host explains a run whose rounds spread far apart.
import { expect, test } from "bun:test";
import { machineTicks, stealPercent } from "../../../bench/procs";

test("steal is the 8th field of /proc/stat's cpu line; the total counts the first eight (guest time is already in user)", () => {
  const stat = "cpu  100 0 50 800 10 0 5 35 7 0\ncpu0 50 0 25 400 5 0 2 17 3 0\nintr 1 2 3\n";
  expect(machineTicks(stat)).toEqual({ total: 1000, steal: 35 });
});

test("steal's share between two readings is its growth over the total's, in per cent; none when no time passed", () => {
  expect(stealPercent({ total: 1000, steal: 35 }, { total: 1400, steal: 95 })).toBe(15);
  expect(stealPercent({ total: 1000, steal: 35 }, { total: 1000, steal: 35 })).toBeNull();
});

test("this machine's /proc/stat reads as a total that grows and a steal within it", () => {
  const a = machineTicks();
  expect(a.total).toBeGreaterThan(0);
  expect(a.steal).toBeGreaterThanOrEqual(0);
  expect(a.steal).toBeLessThanOrEqual(a.total);
});
