import { describe, expect, test } from "bun:test";
import { RESERVATION_TTL_MS } from "../../../src/metering/budgets";
import { MemoryCreditHolds } from "../../../src/metering/credit-holds";

describe("MemoryCreditHolds", () => {
  test("admits while balance − holds is positive, then holds the call's worst case; release frees it once", () => {
    const holds = new MemoryCreditHolds();
    const a = holds.reserve("ws", 100, 60)!;
    expect(holds.reserve("ws", 100, 60)).not.toBeNull(); // 40 µ$ of headroom: admitted, now 20 over
    expect(holds.reserve("ws", 100, 1)).toBeNull();
    expect(holds.reserve("other", 100, 1)).not.toBeNull();
    holds.release(a);
    holds.release(a);
    expect(holds.held("ws")).toBe(60);
    expect(holds.reserve("ws", 100, 1)).not.toBeNull();
  });

  test("a hold never released stops counting after RESERVATION_TTL_MS", () => {
    let now = 1_000_000;
    const holds = new MemoryCreditHolds(() => now);
    expect(holds.reserve("ws", 100, 500)).not.toBeNull();
    expect(holds.reserve("ws", 100, 1)).toBeNull();
    now += RESERVATION_TTL_MS + 60_001;
    expect(holds.reserve("ws", 100, 1)).not.toBeNull();
  });
});
