// The rate-limit hook at the edge: every route maps to one class (docs/contract.md "Rate limits, credits and budgets"); `discovery` is keyed
// by client address, `key_creation` by workspace, the others by API key. A key this instance does not
// hold in its key cache (unknown, malformed, or not read yet) first takes a token from the client
// address's bucket, and only then is it read (and, if valid, charged to its own bucket too): inventing
// keys cannot multiply a limit, and an address over it costs no database lookup.
// Over the limit → 429 rate_limit_exceeded with Retry-After; otherwise the X-RateLimit-* headers are set.
import { Elysia } from "elysia";
import { ApiError } from "./errors";
import { allowsXApiKey, presentedKey } from "./auth";
import { hashApiKey } from "../auth/key-format";
import { clientAddress } from "../limits/client-address";
import { rateLimitHeaders, retryAfterSeconds, type LimitResult, type RateLimiter } from "../limits/limiter";
import type { RateClass } from "../limits/classes";
import type { ApiKeyRow } from "../management/api-keys/repo";
import type { ApiKeyCache, KeyCheck } from "../auth/key-cache";

/** The key cache's view the limiter needs: a held key's row without a database read, and the read itself. */
export type KnownKeys = Pick<ApiKeyCache, "cachedRow" | "verify">;
type LimitHeaders = Record<string, string>;

export type Classifier = (method: string, route: string) => RateClass | null;

const INFERENCE = new Set([
  "POST /v1/chat/completions",
  "POST /v1/responses",
  "POST /v1/messages",
  "POST /v1/messages/count_tokens",
  "GET /v1/models",
  "GET /v1/models/*",
  // Identity is read by SDK set-ups and dashboards at inference rates; it gets the same class.
  "GET /v1/me",
]);
const DISCOVERY_PREFIXES = ["/v1/registry/", "/v1/directory/", "/v1/byok/providers"];

/** Inference and public catalog routes; management routes come from their own table. */
export function builtinClass(method: string, route: string): RateClass | null {
  if (INFERENCE.has(`${method} ${route}`)) return "inference";
  if (method === "GET" && DISCOVERY_PREFIXES.some((p) => route.startsWith(p))) return "discovery";
  return null;
}

/** The client's address as the socket sees it (Bun's server.requestIP); "unknown" when there is none. */
export type PeerAddress = (request: Request) => string;

/**
 * The limit check for one request, as a plain function (the Elysia hook below and the hot routes run
 * it): the X-RateLimit-* headers to send, or a 429 rate_limit_exceeded thrown; nothing for unlimited routes.
 */
export type RateCheck = (
  request: Request,
  route: string,
  peer: PeerAddress,
) => Record<string, string> | null | Promise<Record<string, string> | null>;

/** Synchronous with the memory store (the default), a promise with Redis; `await` takes either. */
export function rateCheck(limiter: RateLimiter, classify: Classifier, trustedProxies: readonly string[], keys: KnownKeys): RateCheck {
  return (request, route, peer) => {
    const cls = classify(request.method, route);
    if (!cls) return null;
    if (cls === "discovery") return take(limiter, cls, addressOf(request, peer, trustedProxies));
    const presented = presentedKey(request.headers, allowsXApiKey(route, request.headers));
    const row = presented ? keys.cachedRow(hashApiKey(presented)) : undefined;
    if (row) return take(limiter, cls, bucketOf(cls, row));
    const byAddress = take(limiter, cls, `addr:${addressOf(request, peer, trustedProxies)}`);
    if (!presented) return byAddress;
    return byAddress instanceof Promise
      ? byAddress.then((h) => afterAddress(limiter, keys, cls, presented, h))
      : afterAddress(limiter, keys, cls, presented, byAddress);
  };
}

/** API keys have a bucket each; `key_creation` has one per workspace, so a key minted by a key gets no allowance of its own. */
function bucketOf(cls: RateClass, row: ApiKeyRow): string {
  return cls === "key_creation" ? `ws:${row.workspaceId}` : row.keyHash;
}

/** One token from (class, key): the headers, or a 429 thrown (or rejected, with Redis). */
function take(limiter: RateLimiter, cls: RateClass, key: string): LimitHeaders | Promise<LimitHeaders> {
  const r = limiter.check(cls, key);
  return r instanceof Promise ? r.then((x) => limited(cls, x)) : limited(cls, r);
}

/**
 * A key not held, past its address's bucket: read it (the cache keeps the answer, so authentication
 * does not read it again), and a valid one pays its own bucket as well; any other answer is authentication's.
 */
function afterAddress(limiter: RateLimiter, keys: KnownKeys, cls: RateClass, presented: string, byAddress: LimitHeaders) {
  const own = (c: KeyCheck): LimitHeaders | Promise<LimitHeaders> => (c.ok ? take(limiter, cls, bucketOf(cls, c.key)) : byAddress);
  const check = keys.verify(presented);
  return check instanceof Promise ? check.then(own, () => byAddress) : own(check);
}

/** The client's address, through trusted proxies (a function, not a closure made per request). */
function addressOf(request: Request, peer: PeerAddress, trustedProxies: readonly string[]): string {
  return clientAddress(peer(request), request.headers.get("x-forwarded-for"), trustedProxies);
}

/** The headers for a request within its limit; a 429 ApiError thrown for one past it. */
function limited(cls: string, r: LimitResult): LimitHeaders {
  if (!r.ok) {
    throw new ApiError(
      "rate_limit_exceeded",
      `Rate limit for ${cls} exceeded: ${r.limit} requests per minute. Retry after ${retryAfterSeconds(r)} s.`,
      {
        retryAfterSeconds: retryAfterSeconds(r),
        headers: rateLimitHeaders(r),
      },
    );
  }
  return rateLimitHeaders(r);
}

// A request whose limit was taken before its key was read (inference routes, a key the cache does not hold),
// marked on the Request itself so that the hook below does not take a second token for it.
const TAKEN = Symbol("switchyard.rateLimitTaken");
type Marked = Request & { [TAKEN]?: true };

/**
 * The limit taken ahead of the key's database read, as the hot routes do it (address first): for the
 * Elysia inference routes' parse step, which reads the key before the hook below runs.
 */
export async function takeLimitAhead(check: RateCheck, request: Request, route: string, peer: PeerAddress): Promise<LimitHeaders | null> {
  const headers = await check(request, route, peer);
  (request as Marked)[TAKEN] = true;
  return headers;
}

/**
 * The hook for Elysia's routes. `peer` is given rather than read from the hook's `server`: a hook that
 * names `server` makes Elysia define a getter on every request's context (Object.defineProperty per request).
 */
export function rateLimit(check: RateCheck, peer: PeerAddress) {
  return new Elysia({ name: "rate-limit" }).onBeforeHandle({ as: "global" }, async ({ request, route, set }) => {
    if ((request as Marked)[TAKEN]) return;
    const headers = await check(request, route, peer);
    if (headers) Object.assign(set.headers, headers);
  });
}
