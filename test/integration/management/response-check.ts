// Checks management response bodies against the schemas their routes document (the same TypeBox objects
// the OpenAPI document is built from), strictly: an object may hold no field its schema does not name.
import { FormatRegistry, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { Deps } from "../../../src/deps";
import { managementRoutes } from "../../../src/management/routes";
import { MANAGEMENT_ROUTES, type RouteId } from "../../../src/management/route-table";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", (v) => ISO.test(v) && Number.isFinite(Date.parse(v)));

/** A copy of the schema in which every object with named properties refuses others (symbols kept: TypeBox's kinds). */
function strict(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(strict);
  if (!s || typeof s !== "object") return s;
  const src = s as Record<string | symbol, unknown>;
  const out: Record<string | symbol, unknown> = {};
  for (const k of Reflect.ownKeys(src)) out[k] = strict(src[k]);
  if (src.type === "object" && src.properties && src.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

type Responses = Record<string, { content?: Record<string, { schema: TSchema }> }>;

/** Route → status → the documented body schema, read from the mounted routes themselves. */
export function documentedBodies(deps: Deps): Map<RouteId, Map<number, TSchema>> {
  const app = managementRoutes(deps.management, deps.config.maxRequestBodyBytes.management, deps.health);
  const byRoute = new Map<string, Responses>();
  for (const r of app.routes as unknown as { method: string; path: string; hooks: { detail?: { responses?: Responses } } }[])
    byRoute.set(`${r.method} ${r.path}`, r.hooks.detail?.responses ?? {});
  const out = new Map<RouteId, Map<number, TSchema>>();
  for (const [id, spec] of Object.entries(MANAGEMENT_ROUTES) as [RouteId, (typeof MANAGEMENT_ROUTES)[RouteId]][]) {
    const statuses = new Map<number, TSchema>();
    for (const [status, res] of Object.entries(byRoute.get(`${spec.method} ${spec.path}`) ?? {})) {
      const schema = res.content?.["application/json"]?.schema;
      if (schema) statuses.set(Number(status), strict(schema) as TSchema);
    }
    out.set(id, statuses);
  }
  return out;
}

/** Where a 2xx body departs from its route's schema for that status ("" entries: none). */
export function bodyMismatches(docs: Map<RouteId, Map<number, TSchema>>, id: RouteId, status: number, text: string): string[] {
  if (status === 204) return text === "" ? [] : [`${id} ${status}: a 204 with a body`];
  const schema = docs.get(id)?.get(status);
  if (!schema) return [`${id} ${status}: no schema documented for this status`];
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`${id} ${status}: not JSON`];
  }
  return [...Value.Errors(schema, body)].slice(0, 5).map((e) => `${id} ${status} at '${e.path}': ${e.message}`);
}

const PATTERNS = (Object.entries(MANAGEMENT_ROUTES) as [RouteId, (typeof MANAGEMENT_ROUTES)[RouteId]][]).map(([id, spec]) => ({
  id,
  method: spec.method as string,
  re: new RegExp(`^${spec.path.replace(/:[a-z_]+/g, "[^/]+")}$`),
}));

/** The management route a request went to, by method and path (query left out); undefined for other routes. */
export function routeOf(method: string, path: string): RouteId | undefined {
  const bare = path.split("?")[0]!;
  return PATTERNS.find((p) => p.method === method && p.re.test(bare))?.id;
}
