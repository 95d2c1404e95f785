// Budget periods, always in UTC: a day starts at 00:00, a week on Monday 00:00, a month on the 1st.
// Everything is computed from a timestamp on each call, so periods roll over without a restart.

export type BudgetPeriod = "daily" | "weekly" | "monthly";

export const BUDGET_PERIODS: readonly BudgetPeriod[] = ["daily", "weekly", "monthly"];

export interface PeriodBounds {
  /** Inclusive start, epoch ms. */
  start: number;
  /** Exclusive end, epoch ms (the next period's start). */
  end: number;
  /** Stable name of the period, e.g. "daily:2026-03-02"; changes exactly at the boundary. */
  key: string;
}

const DAY_MS = 86_400_000;

export function periodBounds(period: BudgetPeriod, at: number): PeriodBounds {
  const d = new Date(at);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const dayStart = Date.UTC(y, m, d.getUTCDate());
  let start: number;
  let end: number;
  switch (period) {
    case "daily":
      start = dayStart;
      end = start + DAY_MS;
      break;
    case "weekly": {
      // getUTCDay: Sunday 0 … Saturday 6; days since Monday = (day + 6) % 7.
      start = dayStart - ((d.getUTCDay() + 6) % 7) * DAY_MS;
      end = start + 7 * DAY_MS;
      break;
    }
    case "monthly":
      start = Date.UTC(y, m, 1);
      end = Date.UTC(y, m + 1, 1);
      break;
  }
  return { start, end, key: `${period}:${new Date(start).toISOString().slice(0, 10)}` };
}
