// Mounts one row of the route table: API key and scopes (every one required), own workspace (another
// workspace's ID answers 404), Idempotency-Key where the row says so, then the handler, whose Reply
// becomes the status and JSON body. Handlers receive plain values, never the Elysia context.
import type { Elysia } from "elysia";
import type { TObject, TSchema } from "@sinclair/typebox";
import { authenticate, assertOwnWorkspace, authenticateCached, type AuthContext } from "../http/auth";
import { ApiError } from "../http/errors";
import { parseJsonBody, readBody } from "../http/body";
import type { Management } from "./module";
import { MANAGEMENT_ROUTES, type RouteId, type RouteSpec } from "./route-table";
import { withIdempotency, type Reply, type SaveReply } from "./idempotency/run";

export type { Reply } from "./idempotency/run";

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

export type Handler = (call: Call) => Promise<Reply>;

export interface RouteDoc {
  body?: TSchema;
  query?: TObject;
  /** The 200 body, for the OpenAPI document (the handler's reply is not checked against it). */
  response?: TSchema;
  description?: string;
}

/** The OpenAPI operation. The generator replaces `parameters` with the path parameters, so query
 * parameters and the Idempotency-Key header are listed in the description. */
function openapiDetail(spec: RouteSpec, doc: RouteDoc) {
  const access = spec.public ? "No API key." : `Scopes (all required): ${spec.scopes.join(", ")}.`;
  const notes = [access, `Rate class: ${spec.rateClass}.`];
  if (spec.idempotent) notes.push("Honours the Idempotency-Key header (max 255 chars, ^[A-Za-z0-9_-]+$; records kept 24 h).");
  const query = Object.entries(doc.query?.properties ?? {}).map(
    ([name, schema]) => `\`${name}\` (${(schema as TSchema).description ?? "string"})`,
  );
  if (query.length) notes.push(`Query parameters, all optional: ${query.join(", ")}.`);
  if (doc.description) notes.push(doc.description);
  return {
    summary: spec.summary,
    tags: [spec.tag],
    description: notes.join(" "),
    security: spec.public ? [] : [{ bearer: [] }],
    ...(doc.body ? { requestBody: { required: true, content: { "application/json": { schema: doc.body } } } } : {}),
    ...(doc.response ? { responses: { 200: { description: "OK", content: { "application/json": { schema: doc.response } } } } } : {}),
    "x-rate-class": spec.rateClass,
  };
}

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
export function managementBodyParser(m: Management, maxBodyBytes: number) {
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

export function mount(app: Elysia, m: Management, id: RouteId, handler: Handler, doc: RouteDoc = {}): Elysia {
  const spec: RouteSpec = MANAGEMENT_ROUTES[id];
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
              { store: m.repos.idempotency, lock: m.idempotencyLock },
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
