// API key routes. The full key appears only in the create response.
import { Type } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { SCOPES } from "../../auth/scopes";
import { mount, type Mounting } from "../mount";
import type { UsageRepo } from "../usage/repo";
import { writeOutcome } from "../propagation";
import { check, checkQuery, DateTime, dateTimeMs, oneOf, uuidParam } from "../validate";
import { ApiKey, ApiKeyCreated, ApiKeyList, renderApiKey } from "./repo";
import { createApiKey, getApiKey, revokeApiKey, updateApiKey, type ApiKeyFeature } from "./service";
import { ApiKeyUsage, usageBody, UsageQuery } from "../usage/routes";

const Name = Type.String({ minLength: 1, maxLength: 100, description: "a string of 1 to 100 characters" });
const Scopes = Type.Array(oneOf(SCOPES), { minItems: 1, uniqueItems: true, description: "a non-empty list of distinct known scopes" });
// A playground key holds no scopes, so the create body admits an empty list (the service refuses it otherwise).
const CreateScopes = Type.Array(oneOf(SCOPES), {
  uniqueItems: true,
  description: "a list of distinct known scopes (non-empty, or empty for a playground key)",
});

export const ApiKeyCreateBody = Type.Object(
  {
    name: Name,
    scopes: CreateScopes,
    expires_at: Type.Optional(Type.Union([DateTime, Type.Null()], { description: "an ISO 8601 date-time in the future, or null" })),
    playground: Type.Optional(Type.Boolean({ description: "a boolean" })),
  },
  { additionalProperties: false },
);

export const ApiKeyPatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    scopes: Type.Optional(Scopes),
    expires_at: Type.Optional(Type.Union([DateTime, Type.Null()], { description: "an ISO 8601 date-time in the future, or null" })),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object({
  include_revoked: Type.Optional(Type.Boolean({ description: "true or false" })),
  include_playground: Type.Optional(Type.Boolean({ description: "true or false (default false: playground keys are not listed)" })),
});

const expiry = (s: string | null | undefined) => (s === undefined ? undefined : s === null ? null : dateTimeMs(s, "expires_at"));

const WIDER =
  "A key holding a scope the calling key lacks (the admin key, say) cannot be changed or revoked by it: 403 insufficient_scope.";

/** The API key routes' needs: the service's, and the usage rollups for a key's usage. */
export type ApiKeyRouteFeature = ApiKeyFeature & { usage: UsageRepo };

export function apiKeyRoutes(app: Elysia, m: Mounting, d: ApiKeyRouteFeature): Elysia {
  mount(
    app,
    m,
    "apiKeys.list",
    async (c) => {
      const q = checkQuery(ListQuery, c.query);
      const rows = await d.apiKeys.list(c.workspaceId, q.include_revoked ?? false, q.include_playground ?? false);
      return { status: 200, body: { api_keys: rows.map((r) => renderApiKey(r)), count: rows.length } };
    },
    { query: ListQuery, response: ApiKeyList },
  );
  mount(
    app,
    m,
    "apiKeys.create",
    async (c) => {
      const b = check(ApiKeyCreateBody, c.body);
      const { row, key } = await createApiKey(d, c.auth!.key, c.workspaceId, {
        name: b.name,
        scopes: b.scopes,
        expiresAt: expiry(b.expires_at),
        playground: b.playground ?? false,
      });
      const out = writeOutcome(d.shared, "created");
      return { status: out.status, body: { ...renderApiKey(row, out.propagationStatus), key } };
    },
    {
      body: ApiKeyCreateBody,
      response: ApiKeyCreated,
      description:
        "The response's `key` is the full key, shown this once. A playground key (`playground: true`) is inference-only: `scopes` must be empty, and without `expires_at` it expires after 24 h (config `playground_key_ttl_hours`).",
    },
  );
  mount(
    app,
    m,
    "apiKeys.get",
    async (c) => {
      const row = await getApiKey(d, c.workspaceId, uuidParam(c.params.api_key_id, "api_key_id"));
      return { status: 200, body: renderApiKey(row) };
    },
    { response: ApiKey },
  );
  mount(
    app,
    m,
    "apiKeys.update",
    async (c) => {
      const id = uuidParam(c.params.api_key_id, "api_key_id");
      const b = check(ApiKeyPatchBody, c.body);
      const row = await updateApiKey(d, c.auth!.key, c.workspaceId, id, {
        name: b.name,
        scopes: b.scopes,
        expiresAt: expiry(b.expires_at),
      });
      const out = writeOutcome(d.shared, "updated");
      return { status: out.status, body: renderApiKey(row, out.propagationStatus) };
    },
    { body: ApiKeyPatchBody, response: ApiKey, description: WIDER },
  );
  mount(
    app,
    m,
    "apiKeys.revoke",
    async (c) => {
      const row = await revokeApiKey(d, c.auth!.key, c.workspaceId, uuidParam(c.params.api_key_id, "api_key_id"));
      const out = writeOutcome(d.shared, "deleted");
      return { status: out.status, body: out.status === 204 ? undefined : renderApiKey(row, out.propagationStatus) };
    },
    { accepted: ApiKey, description: `${WIDER} A 202 (shared mode) carries the revoked key.` },
  );
  mount(
    app,
    m,
    "apiKeys.usage",
    async (c) => {
      const row = await getApiKey(d, c.workspaceId, uuidParam(c.params.api_key_id, "api_key_id"));
      return { status: 200, body: { api_key_id: row.id, ...(await usageBody(d, c.workspaceId, c.query, row.id)) } };
    },
    { query: UsageQuery, response: ApiKeyUsage },
  );
  return app;
}
