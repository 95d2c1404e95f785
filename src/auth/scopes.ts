// The closed set of scopes (API document §5.6 and docs/contract.md "Management API choices"). Inference and /v1/me need a valid key
// and no scope: every key may call models. `metrics:read` is for GET /metrics (a Prometheus scraper's key).
export const SCOPES = [
  "workspace:read",
  "workspace:write",
  "routing:read",
  "routing:write",
  "usage:read",
  "budgets:read",
  "budgets:write",
  "keys:read",
  "keys:write",
  "byok:read",
  "byok:write",
  "billing:read",
  "members:read",
  "members:write",
  "audit:read",
  "metrics:read",
] as const;
export type Scope = (typeof SCOPES)[number];
export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
