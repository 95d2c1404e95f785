import { describe, expect, test } from "bun:test";
import { periodBounds } from "../../../src/metering/periods";

const iso = (ms: number) => new Date(ms).toISOString();

describe("periodBounds (UTC)", () => {
  test("daily: midnight to midnight UTC", () => {
    const b = periodBounds("daily", Date.UTC(2026, 2, 4, 23, 59, 59, 999));
    expect(iso(b.start)).toBe("2026-03-04T00:00:00.000Z");
    expect(iso(b.end)).toBe("2026-03-05T00:00:00.000Z");
    expect(periodBounds("daily", b.end).key).not.toBe(b.key);
    expect(periodBounds("daily", b.end - 1).key).toBe(b.key);
  });

  test("weekly starts on Monday, whatever the day", () => {
    for (let d = 2; d <= 8; d++) {
      const b = periodBounds("weekly", Date.UTC(2026, 2, d, 15)); // Mon 2 … Sun 8 March 2026
      expect(iso(b.start)).toBe("2026-03-02T00:00:00.000Z");
      expect(iso(b.end)).toBe("2026-03-09T00:00:00.000Z");
      expect(b.key).toBe("weekly:2026-03-02");
    }
    // Sunday just before midnight is still last week; Monday 00:00 is the next.
    expect(iso(periodBounds("weekly", Date.UTC(2026, 2, 1, 23, 59, 59)).start)).toBe("2026-02-23T00:00:00.000Z");
    expect(iso(periodBounds("weekly", Date.UTC(2026, 2, 9)).start)).toBe("2026-03-09T00:00:00.000Z");
    // Across a year boundary.
    expect(iso(periodBounds("weekly", Date.UTC(2027, 0, 1)).start)).toBe("2026-12-28T00:00:00.000Z");
  });

  test("monthly: the 1st to the 1st, with month lengths and leap years", () => {
    const feb = periodBounds("monthly", Date.UTC(2028, 1, 29, 12));
    expect(iso(feb.start)).toBe("2028-02-01T00:00:00.000Z");
    expect(iso(feb.end)).toBe("2028-03-01T00:00:00.000Z");
    const dec = periodBounds("monthly", Date.UTC(2026, 11, 31, 23, 59));
    expect(iso(dec.end)).toBe("2027-01-01T00:00:00.000Z");
    expect(dec.key).toBe("monthly:2026-12-01");
  });
});
