// The time grid of a usage series: which UTC days a query covers and where each bucket starts. Weeks
// start on Monday 00:00 UTC; a range's first week bucket may start before its first day (records are
// still only counted from that day, so the totals match /usage for the same days).
import { Type } from "@sinclair/typebox";
import { ApiError } from "../../http/errors";

export const INTERVALS = ["hour", "day", "week"] as const;
export type Interval = (typeof INTERVALS)[number];

export const DAY_MS = 86_400_000;
export const BUCKET_MS: Record<Interval, number> = { hour: 3_600_000, day: DAY_MS, week: 7 * DAY_MS };
/** More buckets than this is refused: the answer would be too large to chart. */
export const MAX_BUCKETS = 1_000;

export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);

export const Day = Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "a date, YYYY-MM-DD" });

/** A day the pattern admitted that is also on the calendar ("2026-02-30" is a 400 naming the field). */
export function validDay(day: string, param: string): string {
  if (Number.isNaN(dayMs(day)) || dayOf(dayMs(day)) !== day) {
    throw new ApiError("invalid_parameter", `Invalid '${param}': not a calendar date.`, { param });
  }
  return day;
}

/** Monday 00:00 UTC of the week holding `ms` (1970-01-01 was a Thursday, three days after a Monday). */
export function mondayOf(ms: number): number {
  const d = Math.floor(ms / DAY_MS);
  return (d - ((((d + 3) % 7) + 7) % 7)) * DAY_MS;
}

/** The first day of the default range ending on `end`: today and yesterday, 30 days, or 12 ISO weeks. */
export function defaultStart(interval: Interval, end: string): string {
  const e = dayMs(end);
  if (interval === "hour") return dayOf(e - DAY_MS);
  if (interval === "day") return dayOf(e - 29 * DAY_MS);
  return dayOf(mondayOf(e) - 11 * BUCKET_MS.week);
}

export interface Grid {
  /** Records are read in [startMs, endMs). */
  startMs: number;
  endMs: number;
  /** Bucket i starts at origin + i × size. */
  origin: number;
  size: number;
  count: number;
}

/** The buckets of an inclusive day range; more than MAX_BUCKETS is a 400 naming start_date. */
export function grid(interval: Interval, start: string, end: string): Grid {
  const startMs = dayMs(start);
  const endMs = dayMs(end) + DAY_MS;
  const size = BUCKET_MS[interval];
  const origin = interval === "week" ? mondayOf(startMs) : startMs;
  const count = Math.ceil((endMs - origin) / size);
  if (count > MAX_BUCKETS) {
    throw new ApiError(
      "invalid_parameter",
      `Invalid 'start_date': the range holds ${count} ${interval} buckets, more than ${MAX_BUCKETS}.`,
      {
        param: "start_date",
      },
    );
  }
  return { startMs, endMs, origin, size, count };
}

export const bucketStarts = (g: Grid): string[] => Array.from({ length: g.count }, (_, i) => new Date(g.origin + i * g.size).toISOString());
