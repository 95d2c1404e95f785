// What the OpenAPI document says of a management route, from its row of the route table and its doc:
// access and rate class, the request body, the success (and 202) body schema, and the error envelope
// under every status the route can answer.
import type { TObject, TSchema } from "@sinclair/typebox";
import { ERROR_TABLE, type ErrorCode } from "../http/errors";
import type { RouteId, RouteSpec } from "./route-table";

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
export function assertDocumented(id: RouteId, spec: RouteSpec, doc: RouteDoc): void {
  if (spec.ok !== 204 && !doc.response) throw new Error(`management route ${id}: no response schema`);
  if (spec.ok === 204 && spec.pending && !doc.accepted) throw new Error(`management route ${id}: no 202 schema`);
}

/** The OpenAPI operation. The generator replaces `parameters` with the path parameters, so query
 * parameters and the Idempotency-Key header are listed in the description. */
export function openapiDetail(spec: RouteSpec, doc: RouteDoc) {
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
