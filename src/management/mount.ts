// Mounts one row of the route table: API key and scopes (every one required), own workspace (another
// workspace's ID answers 404), Idempotency-Key where the row says so, then the handler, whose Reply
// becomes the status and JSON body. Handlers receive plain values, never the Elysia context.
import type { Elysia } from "elysia";
import type { Static, TSchema } from "@sinclair/typebox";
import { authenticate, assertOwnWorkspace, authenticateCached, type AuthContext } from "../http/auth";
import { ApiError } from "../http/errors";
import { parseJsonBody, readBody } from "../http/body";
import type { ApiKeyCache } from "../auth/key-cache";
import type { Logger } from "../platform/logger";
import type { IdempotencyLock } from "./idempotency/lock";
import type { IdempotencyStore } from "./idempotency/store";
import { MANAGEMENT_ROUTES, type RouteId, type RouteSpec } from "./route-table";
import { withIdempotency, type Reply, type SaveReply } from "./idempotency/run";
import { assertDocumented, openapiDetail, type RouteDoc } from "./route-docs";

export type { Reply } from "./idempotency/run";
export type { RouteDoc } from "./route-docs";

/** What mounting a route needs: the key check, the log, and Idempotency-Key's records and lock. */
export interface Mounting {
  keys: ApiKeyCache;
  logger: Logger;
  idempotency: { store: IdempotencyStore; lock: IdempotencyLock };
}

export interface Call {
  /** Null only on public rows of the table (invite acceptance). */
  auth: AuthContext | null;
  actorId: string | null;
  /** The path's workspace, verified to be the key's own (the key's workspace on /v1/workspaces). */
  workspaceId: string;
  params: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  body: unknown;
  headers: Headers;
  /** On idempotent routes with an Idempotency-Key: stores the reply in the write's transaction. */
  saveReply: SaveReply | null;
}

export type Handler<B = unknown> = (call: Call) => Promise<Reply<B>>;

/** A body that failed to parse: answered only once the key has been checked (401 comes first). */
class BodyFailure {
  constructor(readonly error: unknown) {}
}
const NO_BODY = Symbol("switchyard.noBody");

const PUBLIC = new Set(
  Object.values(MANAGEMENT_ROUTES as Record<string, RouteSpec>)
    .filter((r) => r.public)
    .map((r) => `${r.method} ${r.path}`),
);

/**
 * The management routes' body parser (an Elysia parse hook): a key judged bad without the database is
 * refused before the body is read; the body is counted up to `maxBodyBytes` as it arrives (413 past
 * it); a parse failure waits for the handler, which answers it after the key check.
 */
export function managementBodyParser(m: Pick<Mounting, "keys">, maxBodyBytes: number) {
  return async ({ request, route }: { request: Request; route: string }): Promise<unknown> => {
    // Elysia replaces an error thrown here by its own parse error: failures are returned for the handler.
    try {
      if (!PUBLIC.has(`${request.method} ${route}`)) await authenticateCached(m.keys, request, false);
      const text = await readBody(request, maxBodyBytes);
      return text === "" ? NO_BODY : parseJsonBody(text);
    } catch (err) {
      return new BodyFailure(err);
    }
  };
}

/** `doc.response` (and `doc.accepted`) type the handler's reply, so a body that drifts from its schema does not compile. */
export function mount<S extends TSchema = TSchema, A extends TSchema = S>(
  app: Elysia,
  m: Mounting,
  id: RouteId,
  handler: Handler<Static<S> | Static<A>>,
  doc: RouteDoc<S, A> = {},
): Elysia {
  const spec: RouteSpec = MANAGEMENT_ROUTES[id];
  assertDocumented(id, spec, doc);
  return app.route(
    spec.method,
    spec.path,
    async ({ request, params, query, body, set }) => {
      const p = (params ?? {}) as Record<string, string | undefined>;
      let auth: AuthContext | null = null;
      let workspaceId = "";
      if (!spec.public) {
        auth = await authenticate(m.keys, request.headers, spec.scopes);
        workspaceId = p.workspace_id ?? auth.workspaceId;
        assertOwnWorkspace(auth, workspaceId);
      }
      if (body instanceof BodyFailure) throw body.error;
      if (body === NO_BODY) body = undefined;
      const call: Call = {
        auth,
        actorId: auth?.key.id ?? null,
        workspaceId,
        params: p,
        query: (query ?? {}) as Record<string, string | undefined>,
        body,
        headers: request.headers,
        saveReply: null,
      };
      let reply: Reply;
      try {
        reply = spec.idempotent
          ? await withIdempotency(
              m.idempotency,
              { workspaceId, route: id, key: request.headers.get("idempotency-key"), body },
              (saveReply) => handler({ ...call, saveReply }),
            )
          : await handler(call);
      } catch (err) {
        if (err instanceof ApiError)
          m.logger.debug("management call refused", { route: id, workspace_id: workspaceId, code: err.code, message: err.message });
        throw err;
      }
      m.logger.debug("management call", { route: id, workspace_id: workspaceId, actor_api_key_id: call.actorId, status: reply.status });
      set.status = reply.status;
      return reply.status === 204 ? undefined : reply.body;
    },
    { detail: openapiDetail(spec, doc) },
  ) as unknown as Elysia;
}
