// The closed set of scopes, copied because the console bundle must not import server code; the API keys
// browser test checks this list equals src/auth/scopes.ts SCOPES, so a new scope cannot be missed here.
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
