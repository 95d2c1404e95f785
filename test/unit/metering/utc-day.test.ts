// The usage_rollups day key: the UTC calendar day, whatever order records of different days arrive in.
import { expect, test } from "bun:test";
import { utcDay } from "../../../src/metering/request-record";

test("utcDay is the UTC calendar day of an epoch-ms time, across midnights and in any order", () => {
  const midnight = Date.UTC(2026, 10, 26);
  const cases: [number, string][] = [
    [midnight - 1, "2026-11-25"],
    [midnight, "2026-11-26"],
    [midnight + 86_399_999, "2026-11-26"],
    [midnight - 1, "2026-11-25"],
    [midnight + 86_400_000, "2026-11-27"],
    [Date.UTC(1969, 11, 31, 23, 59), "1969-12-31"],
    [0, "1970-01-01"],
  ];
  for (const [ms, day] of cases) expect(utcDay(ms)).toBe(day);
  for (let i = 0; i < 1000; i++) {
    const ms = Date.UTC(2020, 0, 1) + Math.floor(Math.random() * 3e11);
    expect(utcDay(ms)).toBe(new Date(ms).toISOString().slice(0, 10));
  }
});
