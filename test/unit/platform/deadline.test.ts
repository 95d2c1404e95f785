import { expect, test } from "bun:test";
import { raceDeadline } from "../../../src/platform/deadline";

test("raceDeadline answers false as soon as the work settles, long before its deadline", async () => {
  const t0 = performance.now();
  expect(await raceDeadline([Bun.sleep(5), new Promise(() => {})], 60_000)).toBe(false);
  expect(performance.now() - t0).toBeLessThan(30_000);
});

test("raceDeadline answers true when the deadline comes first, and passes a rejection of the work through", async () => {
  expect(await raceDeadline([new Promise(() => {})], 10)).toBe(true);
  await expect(raceDeadline([Promise.reject(new Error("down"))], 60_000)).rejects.toThrow("down");
});
