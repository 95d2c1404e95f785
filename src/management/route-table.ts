// Every management route as one row: method, path, required scopes (all of them), rate class, docs.
// The routes are mounted from this table (mount.ts), the rate limiter looks classes up here
// (rateClassFor), and the scope-matrix test is generated from it, so the three cannot drift apart.
import type { Scope } from "../auth/scopes";

export type RateClass = "management_reads" | "management_writes" | "key_creation";
export type Method = "GET" | "POST" | "PATCH" | "DELETE";

export interface RouteSpec {
  method: Method;
  path: string;
  /** Every one is required (scope_mode = all). Empty with `public` for routes without an API key. */
  scopes: readonly Scope[];
  rateClass: RateClass;
  summary: string;
  tag: string;
  /** The success status when the write applies at once (or a read answers). */
  ok: 200 | 201 | 204;
  /** A write that answers 202 with propagation_status "pending" in shared mode (propagation.ts). */
  pending: boolean;
  /** Honours the Idempotency-Key header (API document §8). */
  idempotent?: boolean;
  /** No API key: the caller proves itself otherwise (an invite token). */
  public?: boolean;
}

const W = "/v1/workspaces/:workspace_id";
const r = (
  method: Method,
  path: string,
  scopes: Scope[],
  rateClass: RateClass,
  tag: string,
  summary: string,
  extra: Partial<RouteSpec> = {},
): RouteSpec => ({
  method,
  path,
  scopes,
  rateClass,
  tag,
  summary,
  ok: OK[method],
  pending: false,
  ...extra,
});
/** What each method answers unless its row says otherwise. */
const OK = { GET: 200, POST: 201, PATCH: 200, DELETE: 204 } as const;
/** Shared mode answers these writes 202. */
const P = { pending: true } as const;
const READ = "management_reads";
const WRITE = "management_writes";

export const MANAGEMENT_ROUTES = {
  "workspaces.list": r("GET", "/v1/workspaces", ["workspace:read"], READ, "workspaces", "List the workspaces this key can reach"),
  "workspaces.get": r("GET", W, ["workspace:read"], READ, "workspaces", "Get a workspace"),
  "workspaces.update": r("PATCH", W, ["workspace:write"], WRITE, "workspaces", "Rename a workspace"),
  "routing.get": r("GET", `${W}/routing-defaults`, ["routing:read"], READ, "routing", "Get the workspace's routing defaults"),
  "routing.update": r("PATCH", `${W}/routing-defaults`, ["routing:write"], WRITE, "routing", "Change some routing defaults", P),
  "routing.delete": r("DELETE", `${W}/routing-defaults`, ["routing:write"], WRITE, "routing", "Clear every routing default", {
    ...P,
    ok: 200,
  }),
  "routingHealth.get": r("GET", "/v1/routing/health", ["routing:read"], READ, "routing", "Every route's estimates, samples and circuit"),
  "usage.get": r("GET", `${W}/usage`, ["usage:read"], READ, "usage", "Usage aggregates over a date range"),
  "usage.series": r("GET", `${W}/usage/series`, ["usage:read"], READ, "usage", "Usage and TTFT percentiles per hour, day or week"),
  "requests.list": r("GET", `${W}/requests`, ["usage:read"], READ, "usage", "List request records"),
  "requests.get": r("GET", `${W}/requests/:request_id`, ["usage:read"], READ, "usage", "One request with every attempt"),
  "budgets.list": r("GET", `${W}/budgets`, ["budgets:read"], READ, "budgets", "List budgets"),
  "budgets.create": r("POST", `${W}/budgets`, ["budgets:write"], WRITE, "budgets", "Create a budget", { ...P, idempotent: true }),
  "budgets.get": r("GET", `${W}/budgets/:budget_id`, ["budgets:read"], READ, "budgets", "Get a budget with its current spend"),
  "budgets.update": r("PATCH", `${W}/budgets/:budget_id`, ["budgets:write"], WRITE, "budgets", "Change a budget's limit or flags", P),
  "budgets.delete": r("DELETE", `${W}/budgets/:budget_id`, ["budgets:write"], WRITE, "budgets", "Delete a budget", P),
  "apiKeys.list": r("GET", `${W}/api-keys`, ["keys:read"], READ, "api-keys", "List API keys (playground keys never)"),
  "apiKeys.create": r(
    "POST",
    `${W}/api-keys`,
    ["keys:write"],
    "key_creation",
    "api-keys",
    "Create an API key (the full key is returned once)",
    P,
  ),
  "apiKeys.get": r("GET", `${W}/api-keys/:api_key_id`, ["keys:read"], READ, "api-keys", "Get an API key"),
  "apiKeys.update": r(
    "PATCH",
    `${W}/api-keys/:api_key_id`,
    ["keys:write"],
    WRITE,
    "api-keys",
    "Change an API key's name, scopes or expiry",
    P,
  ),
  "apiKeys.revoke": r("DELETE", `${W}/api-keys/:api_key_id`, ["keys:write"], WRITE, "api-keys", "Revoke an API key", P),
  "apiKeys.usage": r("GET", `${W}/api-keys/:api_key_id/usage`, ["usage:read"], READ, "api-keys", "Usage aggregates of one API key"),
  "byok.list": r("GET", `${W}/byok-keys`, ["byok:read"], READ, "byok", "List BYOK provider keys (redacted)"),
  "byok.create": r(
    "POST",
    `${W}/byok-keys`,
    ["byok:write"],
    "key_creation",
    "byok",
    "Add a provider key (validated with the provider first)",
    { ...P, idempotent: true },
  ),
  "byok.get": r("GET", `${W}/byok-keys/:byok_key_id`, ["byok:read"], READ, "byok", "Get a BYOK key (redacted)"),
  "byok.update": r(
    "PATCH",
    `${W}/byok-keys/:byok_key_id`,
    ["byok:write"],
    WRITE,
    "byok",
    "Change a BYOK key's name, default, disabled flag or tier",
    P,
  ),
  "byok.delete": r("DELETE", `${W}/byok-keys/:byok_key_id`, ["byok:write"], WRITE, "byok", "Delete a BYOK key", P),
  "billing.balance": r("GET", `${W}/billing/balance`, ["billing:read"], READ, "billing", "Credit balance"),
  "members.list": r("GET", `${W}/members`, ["members:read"], READ, "members", "List members"),
  "members.create": r("POST", `${W}/members`, ["members:write"], WRITE, "members", "Add a member"),
  "members.update": r("PATCH", `${W}/members/:member_id`, ["members:write"], WRITE, "members", "Change a member's role"),
  "members.delete": r("DELETE", `${W}/members/:member_id`, ["members:write"], WRITE, "members", "Remove a member"),
  "invites.list": r("GET", `${W}/invites`, ["members:read"], READ, "invites", "List invites"),
  "invites.create": r("POST", `${W}/invites`, ["members:write"], WRITE, "invites", "Invite someone (the token is returned once)"),
  "invites.delete": r("DELETE", `${W}/invites/:invite_id`, ["members:write"], WRITE, "invites", "Withdraw an invite"),
  "invites.accept": r("POST", "/v1/invites/accept", [], WRITE, "invites", "Accept an invite with its token", { public: true, ok: 200 }),
  "audit.list": r("GET", `${W}/audit-logs`, ["audit:read"], READ, "audit-logs", "List audit events"),
} as const satisfies Record<string, RouteSpec>;

export type RouteId = keyof typeof MANAGEMENT_ROUTES;

/** The rate class of a management route, by method and Elysia route pattern (context `route`). */
// "METHOD pattern" → class, built once: the rate limiter asks on every management request.
const CLASS_BY_ROUTE = new Map(
  (Object.values(MANAGEMENT_ROUTES) as RouteSpec[]).map((spec) => [`${spec.method} ${spec.path}`, spec.rateClass]),
);

export function rateClassFor(method: string, routePattern: string): RateClass | undefined {
  return CLASS_BY_ROUTE.get(`${method.toUpperCase()} ${routePattern}`);
}
