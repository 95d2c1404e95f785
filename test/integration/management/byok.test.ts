import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { openSecret, sealSecret } from "../../../src/crypto/secret-box";
import { byokAad } from "../../../src/management/byok-keys/store";
import { newId, randomBase62 } from "../../../src/platform/ids";
import { openSession, type Session } from "./harness";

const kinds = await testDatabaseKinds();
const FIELDS = [
  "account_tier",
  "account_tier_source",
  "created_at",
  "disabled",
  "id",
  "is_default",
  "key_prefix",
  "last_validated_at",
  "name",
  "propagation_status",
  "provider",
  "updated_at",
  "validation_status",
  "workspace_id",
].sort();
const secret = (kind = "good") => `sk-${kind}-${randomBase62(24)}`;

for (const kind of kinds) {
  describe(`BYOK keys on ${kind}`, () => {
    let x: Session;
    beforeAll(async () => {
      x = await openSession(kind);
    });
    afterAll(async () => {
      await x.stop();
    });

    const create = (body: Record<string, unknown>, headers?: Record<string, string>) =>
      x.call("POST", x.w("/byok-keys"), { body, headers });
    const count = async () => (await x.call("GET", x.w("/byok-keys"))).json.count as number;
    const store = () => x.s.deps.management.byok;

    test("valid secret: 201 with redacted metadata, sealed at rest, routable at once, audited", async () => {
      const s = secret();
      const r = await create({ provider: "alpha", api_key: s });
      expect(r.status).toBe(201);
      expect(Object.keys(r.json).sort()).toEqual(FIELDS);
      expect(r.json).toMatchObject({
        provider: "alpha",
        name: "Alpha Cloud key",
        key_prefix: `${s.slice(0, 4)}…${s.slice(-4)}`,
        is_default: true,
        disabled: false,
        validation_status: "valid",
        account_tier: "free",
        account_tier_source: "fallback",
        propagation_status: null,
      });
      expect(r.text).not.toContain(s.slice(4, -4));
      const [row] = (await x.s.deps.db.orm.select().from(x.s.deps.db.t.byokKeys)).filter((k) => k.id === r.json.id);
      expect(JSON.stringify(row)).not.toContain(s.slice(4, -4));
      expect(Buffer.from(row!.nonce, "base64")).toHaveLength(12);
      expect(row!.masterKeyId).toBe(x.s.deps.management.masterKey().id);
      expect(openSecret(x.s.deps.management.masterKey(), row!, byokAad(row!))).toEqual({ ok: true, plaintext: s });
      expect(store().defaultKeyFor(x.ws, "alpha")).toEqual({ byokKeyId: r.json.id, secret: s, accountTier: "free" });
      expect(x.s.deps.inference.byok.defaultKeyFor(x.ws, "alpha")?.byokKeyId).toBe(r.json.id);
      const audit = (await x.auditRows()).find((a) => a.type === "byok_key.created" && a.targetId === r.json.id);
      expect(audit).toBeDefined();
      expect(audit!.data).not.toContain(s.slice(4, -4));
    });

    test("the same secret twice gets different nonces and ciphertexts", async () => {
      const s = secret();
      const a = await create({ provider: "alpha", api_key: s, is_default: false });
      const b = await create({ provider: "alpha", api_key: s, is_default: false });
      const rows = (await x.s.deps.db.orm.select().from(x.s.deps.db.t.byokKeys)).filter((k) => k.id === a.json.id || k.id === b.json.id);
      expect(rows).toHaveLength(2);
      expect(rows[0]!.nonce).not.toBe(rows[1]!.nonce);
      expect(rows[0]!.ciphertext).not.toBe(rows[1]!.ciphertext);
    });

    test("user tier wins over the fallback; an unknown tier, provider or short key is 400", async () => {
      const r = await create({ provider: "alpha", api_key: secret(), account_tier: "tier-1", name: "prod", is_default: false });
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({ account_tier: "tier-1", account_tier_source: "user_specified", name: "prod", is_default: false });
      const cases: [Record<string, unknown>, string][] = [
        [{ provider: "alpha", api_key: secret(), account_tier: "platinum" }, "account_tier"],
        [{ provider: "nope", api_key: secret() }, "provider"],
        [{ provider: "beta", api_key: secret() }, "provider"],
        [{ provider: "alpha", api_key: "sk-short" }, "api_key"],
        [{ provider: "alpha" }, "api_key"],
        [{ provider: "alpha", api_key: secret(), name: "" }, "name"],
        [{ provider: "alpha", api_key: secret(), is_default: "yes" }, "is_default"],
        [{ provider: "alpha", api_key: secret(), secret: "x" }, "secret"],
      ];
      const calls = x.mock.calls();
      for (const [body, param] of cases) {
        const bad = await create(body);
        expect(bad.status).toBe(400);
        expect(bad.json.error).toMatchObject({ code: "invalid_parameter", param });
      }
      expect(x.mock.calls()).toBe(calls);
    });

    test("provider rejects (401): 400 invalid_provider_credentials, nothing saved or audited", async () => {
      const before = await count();
      const audits = (await x.auditRows()).length;
      const r = await create({ provider: "alpha", api_key: secret("rejected") });
      expect(r.status).toBe(400);
      expect(r.json.error).toMatchObject({ code: "invalid_provider_credentials", type: "invalid_request_error", retryable: false });
      expect(await count()).toBe(before);
      expect((await x.auditRows()).length).toBe(audits);
    });

    test("provider unavailable (503): retryable 502, nothing saved", async () => {
      const before = await count();
      const r = await create({ provider: "alpha", api_key: secret("down") });
      expect(r.status).toBe(502);
      expect(r.json.error).toMatchObject({
        code: "provider_validation_unavailable",
        type: "upstream_error",
        retryable: true,
        provider: "alpha",
      });
      expect(await count()).toBe(before);
    });

    // The session's config sets byok_validation_timeout_ms to 300: the verdict comes long before the
    // default 10 s would (this test's own timeout), while the mock never answers.
    test("provider never answers: 502 once the configured validation timeout passes, nothing saved", async () => {
      expect(x.s.deps.config.byokValidationTimeoutMs).toBe(300);
      const before = await count();
      const calls = x.mock.calls();
      const r = await create({ provider: "alpha", api_key: secret("hang") });
      expect(x.mock.calls()).toBe(calls + 1);
      expect(r.status).toBe(502);
      expect(r.json.error).toMatchObject({ code: "provider_validation_unavailable", retryable: true, provider: "alpha" });
      expect(await count()).toBe(before);
      x.mock.release();
    }, 5_000);

    test("one default per provider: a new default demotes the old; disable/delete leave routing", async () => {
      const first = await create({ provider: "alpha", api_key: secret() });
      const second = await create({ provider: "alpha", api_key: secret() });
      const list = (await x.call("GET", x.w("/byok-keys"))).json.byok_keys as { id: string; is_default: boolean; provider: string }[];
      expect(list.filter((k) => k.is_default && k.provider === "alpha").map((k) => k.id)).toEqual([second.json.id]);
      expect(store().defaultKeyFor(x.ws, "alpha")?.byokKeyId).toBe(second.json.id);
      let r = await x.call("PATCH", x.w(`/byok-keys/${first.json.id}`), {
        body: { is_default: true, name: "main", account_tier: "tier-1" },
      });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ is_default: true, name: "main", account_tier: "tier-1", account_tier_source: "user_specified" });
      expect((await x.call("GET", x.w(`/byok-keys/${second.json.id}`))).json.is_default).toBe(false);
      expect(store().defaultKeyFor(x.ws, "alpha")).toMatchObject({ byokKeyId: first.json.id, accountTier: "tier-1" });
      r = await x.call("PATCH", x.w(`/byok-keys/${first.json.id}`), { body: { account_tier: null } });
      expect(r.json).toMatchObject({ account_tier: "free", account_tier_source: "fallback" });
      r = await x.call("PATCH", x.w(`/byok-keys/${first.json.id}`), { body: { disabled: true } });
      expect(r.json.disabled).toBe(true);
      expect(store().defaultKeyFor(x.ws, "alpha")).toBeNull();
      expect((await x.call("DELETE", x.w(`/byok-keys/${first.json.id}`))).status).toBe(204);
      expect((await x.call("GET", x.w(`/byok-keys/${first.json.id}`))).status).toBe(404);
      expect((await x.call("DELETE", x.w(`/byok-keys/${first.json.id}`))).status).toBe(404);
      const types = (await x.auditRows()).filter((a) => a.targetId === first.json.id).map((a) => a.type);
      expect(types).toEqual(["byok_key.created", "byok_key.updated", "byok_key.updated", "byok_key.updated", "byok_key.deleted"]);
    });

    test("patch validation and foreign IDs", async () => {
      const k = await create({ provider: "alpha", api_key: secret(), is_default: false });
      for (const [body, param] of [
        [{ account_tier: "gold" }, "account_tier"],
        [{ disabled: "no" }, "disabled"],
        [{ api_key: secret() }, "api_key"],
      ] as const) {
        const r = await x.call("PATCH", x.w(`/byok-keys/${k.json.id}`), { body });
        expect(r.status).toBe(400);
        expect(r.json.error.param).toBe(param);
      }
      const other = await x.otherWorkspace();
      expect((await x.call("GET", `/v1/workspaces/${other.ws}/byok-keys/${k.json.id}`, { key: other.key })).status).toBe(404);
      expect((await x.call("GET", x.w("/byok-keys/nope"))).json.error.param).toBe("byok_key_id");
    });

    test("Idempotency-Key: replay returns the original answer without re-validating; other body → 409", async () => {
      const s = secret();
      const key = `create-${randomBase62(8)}`;
      const first = await create({ provider: "alpha", api_key: s, is_default: false }, { "idempotency-key": key });
      expect(first.status).toBe(201);
      const calls = x.mock.calls();
      const replay = await create({ is_default: false, api_key: s, provider: "alpha" }, { "idempotency-key": key });
      expect(replay.status).toBe(201);
      expect(replay.json).toEqual(first.json);
      expect(replay.text).not.toContain(s.slice(4, -4));
      expect(x.mock.calls()).toBe(calls);
      const conflict = await create({ provider: "alpha", api_key: secret(), is_default: false }, { "idempotency-key": key });
      expect(conflict.status).toBe(409);
      expect(conflict.json.error).toMatchObject({ code: "idempotency_conflict", param: "Idempotency-Key" });
      for (const bad of ["has space", "x".repeat(256), "émoji"]) {
        const r = await create({ provider: "alpha", api_key: secret() }, { "idempotency-key": bad });
        expect(r.status).toBe(400);
        expect(r.json.error).toMatchObject({ code: "invalid_parameter", param: "Idempotency-Key" });
      }
      const stored = await x.s.deps.db.orm.select().from(x.s.deps.db.t.idempotencyRecords);
      expect(JSON.stringify(stored)).not.toContain(s.slice(4, -4));
    });

    test("Idempotency-Key: 409 idempotency_in_progress while the first is running", async () => {
      // A gateway whose provider check may wait 5 s (byok_validation_timeout_ms), so the first call is still waiting.
      const slow = await openSession(kind, { validationTimeoutMs: 5_000 });
      const body = { provider: "alpha", api_key: secret("hang"), is_default: false };
      const key = `slow-${randomBase62(8)}`;
      const post = () => slow.call("POST", slow.w("/byok-keys"), { body, headers: { "idempotency-key": key } });
      try {
        const calls = slow.mock.calls();
        const first = post();
        await slow.mock.waitForCalls(calls + 1);
        const second = await post();
        expect(second.status).toBe(409);
        expect(second.json.error).toMatchObject({ code: "idempotency_in_progress", retryable: true });
        slow.mock.release();
        const done = await first;
        expect(done.status).toBe(201);
        const replay = await post();
        expect(replay.status).toBe(201);
        expect(replay.json.id).toBe(done.json.id);
      } finally {
        await slow.stop();
      }
    });

    test("a key added by another process becomes routable after reload()", async () => {
      const m = x.s.deps.management;
      const other = await x.otherWorkspace();
      const id = newId();
      const s = secret();
      const now = Date.now();
      await x.s.deps.db.orm.insert(x.s.deps.db.t.byokKeys).values({
        id,
        workspaceId: other.ws,
        provider: "alpha",
        name: "cli",
        keyPrefix: "sk-x…",
        isDefault: true,
        disabled: false,
        validationStatus: "valid",
        accountTier: null,
        accountTierSource: null,
        lastValidatedAt: now,
        createdAt: now,
        updatedAt: now,
        ...sealSecret(m.masterKey(), s, byokAad({ workspaceId: other.ws, id })),
      });
      expect(m.byok.defaultKeyFor(other.ws, "alpha")).toBeNull();
      await m.reload();
      expect(m.byok.defaultKeyFor(other.ws, "alpha")).toEqual({ byokKeyId: id, secret: s, accountTier: null });
    });
  });
}
