// SpendView (redis-spend-view.ts): the spend this instance knows of each budget period, from Redis'
// answers numbered in the order their commands were sent, plus its own costs queued or in flight.
import { describe, expect, test } from "bun:test";
import { SpendView } from "../../../src/metering/redis-spend-view";

describe("SpendView", () => {
  test("an answer handled late never overwrites a newer one", () => {
    const v = new SpendView();
    const older = v.ticket();
    const newer = v.ticket();
    v.observe("k", 500, newer);
    v.observe("k", 400, older);
    expect(v.current("k")).toBe(500);
  });

  test("queued costs count at once; a batch in flight counts only over values read before it ran", () => {
    const v = new SpendView();
    v.observe("k", 100, v.ticket());
    v.queue("k", 30);
    expect(v.current("k")).toBe(130);
    const batch = v.ticket();
    v.sending(batch);
    expect(v.unsentSpend("k")).toBe(0);
    expect(v.current("k")).toBe(130);
    // A read sent after the batch ran after it too: it already has the 30.
    v.observe("k", 160, v.ticket());
    expect(v.current("k")).toBe(160);
    // The batch's own answer, handled after that newer read, changes nothing.
    v.observe("k", 130, batch);
    v.answered(batch);
    expect(v.current("k")).toBe(160);
  });

  test("within one answer, the last value for a key wins (several costs on one period in a batch)", () => {
    const v = new SpendView();
    const batch = v.ticket();
    v.observe("k", 10, batch);
    v.observe("k", 20, batch);
    expect(v.current("k")).toBe(20);
  });

  test("a failed batch's costs are dropped, as in Redis", () => {
    const v = new SpendView();
    v.observe("k", 100, v.ticket());
    v.queue("k", 30);
    const batch = v.ticket();
    v.sending(batch);
    v.answered(batch);
    expect(v.current("k")).toBe(100);
  });

  test("a value Redis has not confirmed within freshMs is not used", () => {
    let now = 0;
    const v = new SpendView(1_000, () => now);
    expect(v.current("k")).toBeNull();
    v.observe("k", 100, v.ticket());
    now = 1_000;
    expect(v.current("k")).toBe(100);
    now = 1_001;
    expect(v.current("k")).toBeNull();
  });
});
