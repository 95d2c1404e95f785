// The inference POSTs served straight from Bun.serve's route table instead of through Elysia's per-request
// composition (a context object, the hook chain as awaited calls, the response mapping). The steps are
// the same functions the Elysia hooks run (edge.ts, rate-limit.ts): request ID, the key, the body
// (counted, so an unauthenticated or oversized one is never buffered whole), validation, rate limit, the
// route's handler, error rendering, the log line; a key the cache does not hold is rate-limited by address
// before its database read instead. The Elysia routes run the same admission (inferencePost) and stay
// registered: the OpenAPI document and app.handle use them, and with tuning off (SWITCHYARD_TUNING=off)
// they serve everything; with it on, Elysia's `serve.routes` config puts these in front of them.
// Measured side by side (bench/ab.ts --together, 32 connections, three gateways per side): 0.93× the
// CPU per JSON request of the same handlers behind Elysia's composition.
import { Elysia } from "elysia";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import type { TSchema } from "@sinclair/typebox";
import type { ApiKeyCache } from "../auth/key-cache";
import { authenticateCached, authenticateRequest } from "./auth";
import { parseJsonBody, readBody, readJsonBody, refuseNulParams } from "./body";
import type { EdgeSteps } from "./edge";
import { takeLimitAhead, type PeerAddress, type RateCheck } from "./rate-limit";
import { withHeaders } from "./reply-headers";
import { plainWording, schemaApiError } from "./schema-error";

/** What a route's handler sets besides its body: response headers (Elysia's `set`, the same shape). */
export interface ReplySet {
  headers: Record<string, unknown>;
}

/** A route's handler: the validated body in, a JSON text (sent with `set.headers`) or a Response out. */
export type RouteHandler = (request: Request, body: unknown, set: ReplySet) => Promise<string | Response>;

/** What a route needs to admit a request before its handler: the key check, then the body limit. */
export interface Admission {
  keys: ApiKeyCache;
  maxBodyBytes: number;
  /** Anthropic clients send their key as `x-api-key`. */
  allowXApiKey?: boolean;
}

export interface HotRoute {
  path: string;
  handle: RouteHandler;
  admission: Admission;
  /** The body schema, compiled; routes that validate their body themselves leave it out. */
  check?: TypeCheck<TSchema>;
}

type BunRoute = (request: Request, server: { requestIP(r: Request): { address: string } | null }) => Promise<Response>;

/** Bun.serve `routes` entries (POST only: other methods fall through to Elysia, which answers 404). */
export function hotRoutes(routes: readonly HotRoute[], steps: EdgeSteps, limit: RateCheck): Record<string, { POST: BunRoute }> {
  const table: Record<string, { POST: BunRoute }> = {};
  for (const route of routes) table[route.path] = { POST: serveRoute(route, steps, limit) };
  return table;
}

function serveRoute({ path, handle, check, admission }: HotRoute, steps: EdgeSteps, limit: RateCheck): BunRoute {
  // The client address reader, made once per server rather than a closure per request (and made outside
  // the request's scope: a closure made in it kept that first request reachable for good).
  let peerServer: Parameters<BunRoute>[1] | null = null;
  let peer: PeerAddress = () => "unknown";
  return async (request, server) => {
    if (server !== peerServer) {
      peerServer = server;
      peer = addressReader(server);
    }
    const set: ReplySet = { headers: { "x-request-id": steps.tag(request) } };
    let res: Response;
    try {
      // Elysia's order for a key the cache holds: key, body, validation, then the limit (a malformed body
      // takes no token); a key it does not hold is limited by address before the database is read.
      const authed = authenticateCached(admission.keys, request, admission.allowXApiKey ?? false);
      const limitFirst = authed === null;
      if (limitFirst) await limitThenRead(admission, request, path, limit, peer, set);
      else if (authed instanceof Promise) await authed;
      const body = parseJsonBody(await readBody(request, admission.maxBodyBytes));
      // Elysia's transform hook (edge.ts) runs here: no NUL in a query parameter; `%00` is the cue.
      if (request.url.includes("%00")) refuseNulParams(request.url, {}, queryOf(request.url));
      // Worded as Elysia's own validation of the same schema (edge.ts), which app.handle runs.
      if (check && !check.Check(body))
        throw schemaApiError(check.Errors(body).First() ?? { path: "", message: "Invalid value" }, plainWording);
      if (!limitFirst) {
        // The memory limiter answers synchronously: no await (and its resumption) for it.
        const checked = limit(request, path, peer);
        const limits = checked instanceof Promise ? await checked : checked;
        if (limits) Object.assign(set.headers, limits);
      }
      const out = await handle(request, body, set);
      res = typeof out === "string" ? withHeaders(new Response(out), set.headers) : out;
    } catch (err) {
      res = steps.failure(undefined, err, request, path);
      // As Elysia merges `set` into an error response: the rate-limit headers reach the client on errors too.
      for (const [k, v] of Object.entries(set.headers)) if (!res.headers.has(k)) res.headers.set(k, String(v));
    }
    if (steps.timed) steps.log(request, path, res.status);
    return res;
  };
}

/** A key the cache does not hold: its client address's bucket first (rate-limit.ts), then the database read. */
async function limitThenRead(
  admission: Admission,
  request: Request,
  path: string,
  limit: RateCheck,
  peer: PeerAddress,
  set: ReplySet,
): Promise<void> {
  const limits = await takeLimitAhead(limit, request, path, peer);
  if (limits) Object.assign(set.headers, limits);
  await authenticateRequest(admission.keys, request, admission.allowXApiKey ?? false);
}

/** The query's parameters, each with all its values, as Elysia hands them to the transform hook. */
function queryOf(url: string): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const [name, value] of new URL(url).searchParams) (query[name] ??= []).push(value);
  return query;
}

function addressReader(server: Parameters<BunRoute>[1]): PeerAddress {
  return (r) => server.requestIP(r)?.address ?? "unknown";
}

/**
 * One inference POST both ways: the hot route the server serves with tuning on, and the Elysia route with
 * the same handler and admission that documents it (OpenAPI), answers app.handle and, with tuning off,
 * serves. `body` is the schema Elysia validates and the hot route checks compiled; routes that validate
 * their own body leave it out. The Elysia route is made with the app's rate check and address reader.
 */
export function inferencePost(admission: Admission, name: string, path: string, handle: RouteHandler, summary: string, body?: TSchema) {
  // The body's schema is spelled out for the OpenAPI document (Elysia's custom parse hides it otherwise).
  const detail = {
    summary,
    tags: ["inference"],
    security: [{ bearer: [] }],
    ...(body ? { requestBody: { required: true, content: { "application/json": { schema: body } } } } : {}),
  };
  const plugin = (limit: RateCheck, peer: PeerAddress) => {
    // As on the hot route: the key before the counted body, and a key the cache does not hold limited by
    // address before it is read (the rate-limit hook, which runs after parsing, then takes no second token).
    const parse = async ({ request, set }: { request: Request; set: ReplySet }) => {
      const authed = authenticateCached(admission.keys, request, admission.allowXApiKey ?? false);
      if (authed === null) await limitThenRead(admission, request, path, limit, peer, set);
      else await authed;
      return readJsonBody(request, admission.maxBodyBytes);
    };
    return new Elysia({ name }).post(
      path,
      ({ body, request, set }) => handle(request, body, set),
      body ? { body, detail, parse } : { detail, parse },
    );
  };
  const hot: HotRoute = { path, handle, admission, check: body ? TypeCompiler.Compile(body) : undefined };
  return { plugin, hot };
}
