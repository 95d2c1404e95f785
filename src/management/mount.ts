// Mounts one row of the route table: API key and scopes (every one required), own workspace (another
// workspace's ID answers 404), Idempotency-Key where the row says so, then the handler, whose Reply
// becomes the status and JSON body. Handlers receive plain values, never the Elysia context.
import type { Elysia } from "elysia";
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { authenticate, assertOwnWorkspace, authenticateCached, type AuthContext } from "../http/auth";
import { ApiError, ERROR_TABLE, type ErrorCode } from "../http/errors";
import { parseJsonBody, readBody } from "../http/body";
import type { ApiKeyCache } from "../auth/key-cache";
import type { Logger } from "../platform/logger";
import type { IdempotencyLock } from "./idempotency/lock";
import type { IdempotencyStore } from "./idempotency/store";
import { MANAGEMENT_ROUTES, type RouteId, type RouteSpec } from "./route-table";
import { withIdempotency, type Reply, type SaveReply } from "./idempotency/run";

export type { Reply } from "./idempotency/run";

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

export interface RouteDoc<S extends TSchema = TSchema, A extends TSchema = S> {
  body?: TSchema;
  query?: TObject;
  /** The success body (route table's `ok`); none for a 204. The handler's reply is typed from it. */
  response?: S;
  /** The 202 body of a `pending` write, when it differs from `response` (a delete's acknowledgement). */
  accepted?: A;
  /** Error codes beyond the ones every route of its kind can answer (errorCodes). */
  errors?: ErrorCode[];
  description?: string;
}

/** What a route can answer besides success: its kind's codes and the ones its doc adds. */
export function errorCodes(spec: RouteSpec, doc: RouteDoc): ErrorCode[] {
  // Any query or path parameter holding NUL is a 400 (edge.ts); every route reads the database.
  const codes = new Set<ErrorCode>(["invalid_parameter", "rate_limit_exceeded", "internal_error", "service_unavailable"]);
  if (!spec.public) ["invalid_api_key", "insufficient_scope"].forEach((c) => codes.add(c as ErrorCode));
  if (spec.path.includes(":") || spec.public) codes.add("not_found");
  if (doc.body) ["invalid_request", "request_too_large"].forEach((c) => codes.add(c as ErrorCode));
  if (spec.idempotent) ["idempotency_conflict", "idempotency_in_progress"].forEach((c) => codes.add(c as ErrorCode));
  for (const c of doc.errors ?? []) codes.add(c);
  return [...codes];
}

const json = (schema: TSchema | { $ref: string }) => ({ "application/json": { schema } });

/** The error envelope's name among the document's components (routes.ts registers it), referenced by every error status. */
export const ERROR_MODEL = "ErrorEnvelope";
const ERROR_REF = { $ref: `#/components/schemas/${ERROR_MODEL}` };

/** The operation's responses: success (and 202) bodies, then the error envelope under each status it can answer. */
function openapiResponses(spec: RouteSpec, doc: RouteDoc) {
  const out: Record<string, { description: string; content?: ReturnType<typeof json> }> = {};
  if (spec.ok === 204) out["204"] = { description: "Done; no body." };
  else out[String(spec.ok)] = { description: spec.ok === 201 ? "Created" : "OK", content: json(doc.response!) };
  if (spec.pending)
    out["202"] = {
      description: "Accepted (shared mode): other instances apply it within 5 s.",
      content: json(doc.accepted ?? doc.response!),
    };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of errorCodes(spec, doc)) byStatus.set(ERROR_TABLE[c].status, [...(byStatus.get(ERROR_TABLE[c].status) ?? []), c]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b))
    out[String(status)] = { description: codes.join(", "), content: json(ERROR_REF) };
  return out;
}

/** A route of the table whose doc lacks a body schema it must have: a programming error, caught at mount. */
function assertDocumented(id: RouteId, spec: RouteSpec, doc: RouteDoc): void {
  if (spec.ok !== 204 && !doc.response) throw new Error(`management route ${id}: no response schema`);
  if (spec.ok === 204 && spec.pending && !doc.accepted) throw new Error(`management route ${id}: no 202 schema`);
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
    ...(doc.body ? { requestBody: { required: true, content: json(doc.body) } } : {}),
    responses: openapiResponses(spec, doc),
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
