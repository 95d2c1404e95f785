// BYOK key routes. POST validates with the provider first (400 invalid_provider_credentials or 502
// provider_validation_unavailable, nothing saved) and honours Idempotency-Key; a replay returns the
// redacted metadata only.
import { Type } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { mount, type Mounting } from "../mount";
import { writeOutcome } from "../propagation";
import { check, uuidParam } from "../validate";
import {
  ByokKey,
  ByokKeyDeleted,
  type ByokFeature,
  ByokKeyList,
  createByokKey,
  deleteByokKey,
  getByokKey,
  renderByokKey,
  updateByokKey,
} from "./service";
import type { ByokRow } from "./repo";

const Name = Type.String({ minLength: 1, maxLength: 100, description: "a string of 1 to 100 characters" });
const Tier = Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
  description: "a tier name of the provider, or null",
});
const Flag = Type.Boolean({ description: "a boolean" });

export const ByokCreateBody = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 100, description: "a provider ID from /v1/byok/providers" }),
    api_key: Type.String({ minLength: 10, maxLength: 4096, description: "the provider secret, 10 to 4096 characters (write-only)" }),
    name: Type.Optional(Type.Union([Name, Type.Null()], { description: "a string of 1 to 100 characters, or null" })),
    is_default: Type.Optional(Flag),
    account_tier: Type.Optional(Tier),
  },
  { additionalProperties: false },
);

export const ByokPatchBody = Type.Object(
  { name: Type.Optional(Name), is_default: Type.Optional(Flag), disabled: Type.Optional(Flag), account_tier: Type.Optional(Tier) },
  { additionalProperties: false },
);

export function byokRoutes(app: Elysia, m: Mounting, d: ByokFeature): Elysia {
  const keyId = (p: Record<string, string | undefined>) => uuidParam(p.byok_key_id, "byok_key_id");
  mount(
    app,
    m,
    "byok.list",
    async (c) => {
      const rows = await d.byok.list(c.workspaceId);
      return { status: 200, body: { byok_keys: rows.map((r) => renderByokKey(r)), count: rows.length } };
    },
    { response: ByokKeyList },
  );
  mount(
    app,
    m,
    "byok.create",
    async (c) => {
      const b = check(ByokCreateBody, c.body);
      const out = writeOutcome(d.shared, "created");
      const reply = (row: ByokRow) => ({ status: out.status, body: renderByokKey(row, out.propagationStatus) });
      // Stored for Idempotency-Key in the create's own transaction, so both commit or neither.
      const row = await createByokKey(
        d,
        c.actorId,
        c.workspaceId,
        {
          provider: b.provider,
          apiKey: b.api_key,
          name: b.name ?? null,
          isDefault: b.is_default ?? true,
          accountTier: b.account_tier ?? null,
        },
        async (o, created) => {
          await c.saveReply?.(o, reply(created));
        },
      );
      return reply(row);
    },
    {
      body: ByokCreateBody,
      response: ByokKey,
      errors: ["invalid_provider_credentials", "provider_validation_unavailable"],
      description: "The secret is validated with the provider before it is saved, then encrypted at rest and never returned.",
    },
  );
  mount(app, m, "byok.get", async (c) => ({ status: 200, body: renderByokKey(await getByokKey(d, c.workspaceId, keyId(c.params))) }), {
    response: ByokKey,
  });
  mount(
    app,
    m,
    "byok.update",
    async (c) => {
      const id = keyId(c.params);
      const b = check(ByokPatchBody, c.body);
      const row = await updateByokKey(d, c.actorId, c.workspaceId, id, {
        name: b.name,
        isDefault: b.is_default,
        disabled: b.disabled,
        accountTier: b.account_tier,
      });
      const out = writeOutcome(d.shared, "updated");
      return { status: out.status, body: renderByokKey(row, out.propagationStatus) };
    },
    { body: ByokPatchBody, response: ByokKey },
  );
  mount(
    app,
    m,
    "byok.delete",
    async (c) => {
      const id = keyId(c.params);
      await deleteByokKey(d, c.actorId, c.workspaceId, id);
      const out = writeOutcome(d.shared, "deleted");
      return {
        status: out.status,
        body: out.status === 204 ? undefined : { id, deleted: true as const, propagation_status: out.propagationStatus },
      };
    },
    { accepted: ByokKeyDeleted },
  );
  return app;
}
