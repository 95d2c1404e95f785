// GET /usage/series: usage per hour, day or ISO week (optionally per model, provider or API key), with
// TTFT percentiles, for the console's Overview charts.
import { Type } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { ApiError } from "../../http/errors";
import { mount, type Reply } from "../mount";
import type { Mounting } from "../mount";
import { checkQuery, oneOf } from "../validate";
import { buildSeries, UsageSeries } from "./series-build";
import { bucketStarts, Day, dayOf, defaultStart, grid, INTERVALS, MAX_BUCKETS, validDay } from "./series-range";
import { SERIES_GROUP_BY, TTFT_BINS_DESCRIPTION, type SeriesRepo } from "./series-repo";

export const SeriesQuery = Type.Object({
  interval: Type.Optional(oneOf(INTERVALS)),
  group_by: Type.Optional(oneOf(SERIES_GROUP_BY)),
  start_date: Type.Optional(Day),
  end_date: Type.Optional(Day),
});

const DESCRIPTION = [
  "Dates are inclusive UTC days; without them, today and yesterday (hour), the last 30 days (day) or the last 12 ISO weeks (week).",
  "Weeks start on Monday 00:00 UTC.",
  `Every bucket of the range is listed, empty ones included; more than ${MAX_BUCKETS} buckets is refused (400 naming start_date).`,
  "Counted as /usage counts: `requests` and `errors` are calls (final attempts), tokens and cost add every attempt, so over the same days the totals equal /usage's.",
  "Without group_by there is one series, whose group is null.",
  `TTFT percentiles cover final successful attempts that report a TTFT; they are estimated from histogram bins (${TTFT_BINS_DESCRIPTION}),`,
  "interpolated between each bin's smallest and largest value, so an estimate is off by less than its bin's width (exact when a bin holds at most two distinct values); null where a bucket has none.",
].join(" ");

export function seriesRoutes(app: Elysia, m: Mounting, d: { series: SeriesRepo; now: () => number }): Elysia {
  const repo = d.series;
  const reply = async (workspaceId: string, query: Record<string, string | undefined>): Promise<Reply<UsageSeries>> => {
    const q = checkQuery(SeriesQuery, query);
    const interval = q.interval ?? "day";
    const end = q.end_date ? validDay(q.end_date, "end_date") : dayOf(d.now());
    const start = q.start_date ? validDay(q.start_date, "start_date") : defaultStart(interval, end);
    if (start > end) throw new ApiError("invalid_parameter", "Invalid 'end_date': must not be before start_date.", { param: "end_date" });
    const g = grid(interval, start, end);
    const groupBy = q.group_by ?? null;
    const built = buildSeries(g.count, groupBy, await repo.read(workspaceId, g, groupBy));
    const body: UsageSeries = { interval, group_by: groupBy, start_date: start, end_date: end, buckets: bucketStarts(g), ...built };
    return { status: 200, body };
  };
  mount(app, m, "usage.series", (c) => reply(c.workspaceId, c.query), {
    query: SeriesQuery,
    response: UsageSeries,
    description: DESCRIPTION,
  });
  return app;
}
