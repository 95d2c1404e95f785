// API-key and scope checks at the edge. Every listed scope is required (scope_mode = all).
import { ApiError } from "./errors";
import type { ApiKeyCache, KeyCheck } from "../auth/key-cache";
import { KEY_PATTERN, hashApiKey } from "../auth/key-format";
import type { Scope } from "../auth/scopes";
import type { ApiKeyRow } from "../management/api-keys/repo";

export interface AuthContext {
  key: ApiKeyRow;
  workspaceId: string;
}

const REASONS = {
  missing: "Missing API key: send it as 'Authorization: Bearer ak_…'.",
  malformed: "Malformed API key: keys look like 'ak_' followed by base62 characters.",
  unknown: "Invalid API key.",
  expired: "This API key has expired.",
  revoked: "This API key has been revoked.",
  unavailable: "This API key cannot be checked now (the database is unreachable); retry shortly.",
} as const;

/** The presented key: `Authorization: Bearer …`, or `x-api-key` where the route allows it (Anthropic clients). */
export function presentedKey(headers: Headers, allowXApiKey: boolean): string | null {
  const auth = headers.get("authorization");
  if (auth) return bearerToken(auth);
  return allowXApiKey ? headers.get("x-api-key") : null;
}

/**
 * Where Anthropic clients may present the key as `x-api-key`: /v1/messages and its count_tokens, and the
 * model routes when the client speaks Anthropic (sends `anthropic-version`), as the Anthropic SDKs and Claude Code do.
 */
export function allowsXApiKey(route: string, headers: Headers): boolean {
  return (
    route === "/v1/messages" ||
    route === "/v1/messages/count_tokens" ||
    (route.startsWith("/v1/models") && headers.has("anthropic-version"))
  );
}

const SPACE = /\s/;

/** The token of `Bearer <token>` (scheme case-insensitive, surrounding spaces allowed); "" when malformed. */
function bearerToken(auth: string): string {
  // The common shape ("Bearer " + token, nothing else) without a regular expression: this runs twice per request.
  if (auth.startsWith("Bearer ")) {
    const token = auth.slice(7);
    if (token.length > 0 && !SPACE.test(token)) return token;
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  return m ? m[1]! : "";
}

/**
 * The caller's key and workspace, or an ApiError thrown. Synchronous when the key cache answers from
 * memory (the hot path), a promise when it reads the database; `await` takes either.
 */
export function authenticate(
  cache: ApiKeyCache,
  headers: Headers,
  scopes: readonly Scope[] = [],
  opts: { allowXApiKey?: boolean } = {},
): AuthContext | Promise<AuthContext> {
  const check = cache.verify(presentedKey(headers, opts.allowXApiKey ?? false));
  return check instanceof Promise ? check.then((c) => authorized(c, scopes)) : authorized(check, scopes);
}

function authorized(check: KeyCheck, scopes: readonly Scope[]): AuthContext {
  if (!check.ok) {
    // Not the caller's fault: a key never seen before while the database is away cannot be judged.
    if (check.reason === "unavailable") throw new ApiError("service_unavailable", REASONS.unavailable, { retryAfterSeconds: 1 });
    throw new ApiError("invalid_api_key", REASONS[check.reason]);
  }
  const missing = scopes.length ? scopes.filter((s) => !check.key.scopes.includes(s)) : scopes;
  if (missing.length > 0) {
    throw new ApiError("insufficient_scope", `This API key lacks the required scope(s): ${missing.join(", ")}.`);
  }
  return { key: check.key, workspaceId: check.key.workspaceId };
}

// The edge checks the key before it reads the body and keeps the answer on the request for the handler.
const AUTH = Symbol("switchyard.auth");
type WithAuth = Request & { [AUTH]?: AuthContext };

/** `authenticate` for a request, the answer kept on it for authOf; synchronous when the cache answers. */
export function authenticateRequest(cache: ApiKeyCache, request: Request, allowXApiKey: boolean): AuthContext | Promise<AuthContext> {
  const authed = authenticate(cache, request.headers, [], { allowXApiKey });
  return authed instanceof Promise ? authed.then((a) => keep(request, a)) : keep(request, authed);
}

function keep(request: Request, auth: AuthContext): AuthContext {
  (request as WithAuth)[AUTH] = auth;
  return auth;
}

export function authOf(request: Request): AuthContext | undefined {
  return (request as WithAuth)[AUTH];
}

/**
 * `authenticateRequest` for a key that can be judged without reading it from the database first (missing,
 * malformed, or held by the cache); null for a key the cache does not hold, to be read after its
 * rate-limit check (an unknown key costs no lookup once its address is over the limit).
 */
export function authenticateCached(cache: ApiKeyCache, request: Request, allowXApiKey: boolean): AuthContext | Promise<AuthContext> | null {
  const presented = presentedKey(request.headers, allowXApiKey);
  if (presented && KEY_PATTERN.test(presented) && !cache.cachedRow(hashApiKey(presented))) return null;
  return authenticateRequest(cache, request, allowXApiKey);
}

/** Workspace routes: another workspace's ID answers 404, not 403, so IDs do not leak. */
export function assertOwnWorkspace(auth: AuthContext, workspaceId: string): void {
  if (auth.workspaceId !== workspaceId) throw new ApiError("not_found", "Workspace not found.");
}
