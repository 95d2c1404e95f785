// Usage aggregates over whole UTC days (the rollups' grain). Default range: the last 30 days.
import { Type, type Static } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { ApiError } from "../../http/errors";
import { mount, type Mounting } from "../mount";
import { checkQuery, oneOf } from "../validate";
import { GROUP_BY, type UsageRepo } from "./repo";
import { seriesRoutes } from "./series-routes";
import type { SeriesRepo } from "./series-repo";
import { DAY_MS, Day, dayOf, validDay } from "./series-range";

export const UsageQuery = Type.Object({
  start_date: Type.Optional(Day),
  end_date: Type.Optional(Day),
  group_by: Type.Optional(oneOf(GROUP_BY)),
});

const Totals = {
  requests: Type.Integer({ description: "calls (final attempts)" }),
  errors: Type.Integer(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cost_microdollars: Type.Integer(),
};
export const Usage = Type.Object({
  group_by: oneOf(GROUP_BY),
  start_date: Type.String({ description: "YYYY-MM-DD, inclusive" }),
  end_date: Type.String({ description: "YYYY-MM-DD, inclusive" }),
  data: Type.Array(Type.Object({ group: Type.String(), ...Totals })),
  total: Type.Object(Totals),
});
export const ApiKeyUsage = Type.Composite([Type.Object({ api_key_id: Type.String() }), Usage]);
/** The usage body of a workspace, or of one of its API keys. */
export async function usageBody(
  d: { usage: UsageRepo; now: () => number },
  workspaceId: string,
  query: Record<string, string | undefined>,
  apiKeyId?: string,
): Promise<Static<typeof Usage>> {
  const q = checkQuery(UsageQuery, query);
  const end = q.end_date ? validDay(q.end_date, "end_date") : dayOf(d.now());
  const start = q.start_date ? validDay(q.start_date, "start_date") : dayOf(Date.parse(`${end}T00:00:00Z`) - 29 * DAY_MS);
  if (start > end) throw new ApiError("invalid_parameter", "Invalid 'end_date': must not be before start_date.", { param: "end_date" });
  const groupBy = q.group_by ?? "model";
  const agg = await d.usage.aggregate(workspaceId, { groupBy, startDay: start, endDay: end, apiKeyId });
  return { group_by: groupBy, start_date: start, end_date: end, ...agg };
}

/** The usage feature: the daily rollups, the request-record series and the clock. */
export interface UsageFeature {
  usage: UsageRepo;
  series: SeriesRepo;
  now: () => number;
}

export function usageRoutes(app: Elysia, m: Mounting, d: UsageFeature): Elysia {
  mount(app, m, "usage.get", async (c) => ({ status: 200, body: await usageBody(d, c.workspaceId, c.query) }), {
    query: UsageQuery,
    response: Usage,
    description: "Dates are inclusive UTC days; without them, the last 30 days. `requests` counts calls (final attempts).",
  });
  seriesRoutes(app, m, d);
  return app;
}
