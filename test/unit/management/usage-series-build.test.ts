// The series' pure parts: ISO week starts, the bucket grid's limit, and the TTFT estimate from bins.
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/http/errors";
import { percentile } from "../../../src/management/usage/series-build";
import { grid, MAX_BUCKETS, mondayOf } from "../../../src/management/usage/series-range";

const DAY = 86_400_000;

describe("mondayOf", () => {
  test("every day of a week maps to its Monday 00:00 UTC, before 1970 too", () => {
    for (const monday of ["2026-03-02", "1969-12-29", "2024-02-26"]) {
      const m = Date.parse(`${monday}T00:00:00Z`);
      expect(new Date(m).getUTCDay()).toBe(1);
      for (let d = 0; d < 7; d++) expect(new Date(mondayOf(m + d * DAY + 12_345)).toISOString()).toBe(new Date(m).toISOString());
    }
  });
});

describe("grid", () => {
  test("counts the buckets of an inclusive range and refuses more than the limit, naming start_date", () => {
    expect(grid("hour", "2026-03-04", "2026-03-05").count).toBe(48);
    expect(grid("week", "2026-03-08", "2026-03-09").count).toBe(2); // a Sunday and the Monday after
    const start = new Date(Date.parse("2026-03-04T00:00:00Z") - MAX_BUCKETS * DAY).toISOString().slice(0, 10);
    try {
      grid("day", start, "2026-03-04");
      throw new Error("not refused");
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).extra.param).toBe("start_date");
    }
  });
});

describe("percentile", () => {
  const exact = (values: number[], p: number) => {
    const s = [...values].sort((a, b) => a - b);
    const r = p * (s.length - 1);
    return s[Math.floor(r)]! + (r - Math.floor(r)) * (s[Math.ceil(r)]! - s[Math.floor(r)]!);
  };
  test("no values: null; one bin per value: exact", () => {
    expect(percentile([], 0.5)).toBeNull();
    const bins = [7, 130, 2_400, 61_000].map((v, i) => ({ bin: i, n: 1, lo: v, hi: v }));
    for (const p of [0, 0.5, 0.95, 1]) expect(percentile(bins, p)).toBe(Math.round(exact([7, 130, 2_400, 61_000], p) * 10) / 10);
  });
  test("values sharing a bin are spread between its smallest and largest: exact for evenly spaced values", () => {
    const values = [100, 102, 104, 106, 108];
    const bins = [
      { bin: 10, n: 5, lo: 100, hi: 108 },
      { bin: 30, n: 1, lo: 300, hi: 300 },
    ];
    for (const p of [0.1, 0.5, 0.9]) expect(percentile(bins, p)).toBe(Math.round(exact([...values, 300], p) * 10) / 10);
    // Unevenly spread values in one 10 ms bin: the estimate stays inside the bin.
    const skewed = percentile([{ bin: 5, n: 3, lo: 50, hi: 59 }], 0.5)!;
    expect(skewed).toBeGreaterThanOrEqual(50);
    expect(skewed).toBeLessThanOrEqual(59);
  });
});
