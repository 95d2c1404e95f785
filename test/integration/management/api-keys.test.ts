import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { openSession, type Session } from "./harness";

const kinds = await testDatabaseKinds();
const RECORD_FIELDS = [
  "api_key_id",
  "created_at",
  "expires_at",
  "key_prefix",
  "last_used_at",
  "name",
  "playground",
  "propagation_status",
  "revoked_at",
  "scopes",
  "updated_at",
  "workspace_id",
].sort();

for (const kind of kinds) {
  describe(`api keys on ${kind}`, () => {
    let x: Session;
    beforeAll(async () => {
      x = await openSession(kind);
    });
    afterAll(async () => {
      await x.stop();
    });

    const create = (body: unknown, key?: string) => x.call("POST", x.w("/api-keys"), { body, key });

    test("create answers 201 with the full key once; the key works; audited", async () => {
      const expires = new Date(Date.now() + 3600_000).toISOString();
      const r = await create({ name: "ci", scopes: ["usage:read", "keys:read"], expires_at: expires });
      expect(r.status).toBe(201);
      expect(Object.keys(r.json).sort()).toEqual([...RECORD_FIELDS, "key"].sort());
      expect(r.json.key).toMatch(/^ak_[A-Za-z0-9]{40}$/);
      expect(r.json.key_prefix).toBe(r.json.key.slice(0, 10));
      expect(r.json).toMatchObject({
        name: "ci",
        scopes: ["usage:read", "keys:read"],
        expires_at: expires,
        playground: false,
        revoked_at: null,
      });
      const me = await x.call("GET", "/v1/me", { key: r.json.key });
      expect(me.status).toBe(200);
      expect(me.json.api_key_id).toBe(r.json.api_key_id);
      const got = await x.call("GET", x.w(`/api-keys/${r.json.api_key_id}`));
      expect(got.status).toBe(200);
      expect(got.json.key).toBeUndefined();
      expect(Object.keys(got.json).sort()).toEqual(RECORD_FIELDS);
      const audit = (await x.auditRows()).find((a) => a.type === "api_key.created" && a.targetId === r.json.api_key_id);
      expect(audit).toBeDefined();
      expect(audit!.data).not.toContain(r.json.key);
    });

    test("create validation: 400 naming the field", async () => {
      const cases: [unknown, string | null][] = [
        [{ scopes: ["usage:read"] }, "name"],
        [{ name: "", scopes: ["usage:read"] }, "name"],
        [{ name: "n", scopes: [] }, "scopes"],
        [{ name: "n", scopes: ["usage:read", "root"] }, "scopes[1]"],
        [{ name: "n", scopes: ["usage:read", "usage:read"] }, "scopes"],
        [{ name: "n", scopes: ["usage:read"], expires_at: "tomorrow" }, "expires_at"],
        [{ name: "n", scopes: ["usage:read"], expires_at: new Date(Date.now() - 1000).toISOString() }, "expires_at"],
        [{ name: "n", scopes: ["usage:read"], playground: "yes" }, "playground"],
        [{ name: "n", scopes: ["usage:read"], admin: true }, "admin"],
      ];
      for (const [body, param] of cases) {
        const r = await create(body);
        expect(r.status).toBe(400);
        expect(r.json.error).toMatchObject({ code: "invalid_parameter", param });
      }
    });

    test("a key cannot grant scopes it does not hold", async () => {
      const limited = await x.keyWith(["keys:read", "keys:write", "usage:read"]);
      const r = await create({ name: "escalate", scopes: ["usage:read", "billing:read"] }, limited);
      expect(r.status).toBe(400);
      expect(r.json.error).toMatchObject({ code: "invalid_parameter", param: "scopes[1]" });
      const ok = await create({ name: "narrower", scopes: ["usage:read"] }, limited);
      expect(ok.status).toBe(201);
      const widen = await x.call("PATCH", x.w(`/api-keys/${ok.json.api_key_id}`), { key: limited, body: { scopes: ["audit:read"] } });
      expect(widen.status).toBe(400);
      expect(widen.json.error.param).toBe("scopes[0]");
    });

    test("list hides revoked keys unless include_revoked, and playground keys unless include_playground", async () => {
      const play = await create({ name: "playground", scopes: [], playground: true });
      const gone = await create({ name: "to-revoke", scopes: ["usage:read"] });
      expect((await x.call("DELETE", x.w(`/api-keys/${gone.json.api_key_id}`))).status).toBe(204);
      const list = await x.call("GET", x.w("/api-keys"));
      expect(list.status).toBe(200);
      const ids = list.json.api_keys.map((k: { api_key_id: string }) => k.api_key_id);
      expect(list.json.count).toBe(ids.length);
      expect(ids).not.toContain(play.json.api_key_id);
      expect(ids).not.toContain(gone.json.api_key_id);
      const all = await x.call("GET", x.w("/api-keys?include_revoked=true"));
      const allIds = all.json.api_keys.map((k: { api_key_id: string }) => k.api_key_id);
      expect(allIds).toContain(gone.json.api_key_id);
      expect(allIds).not.toContain(play.json.api_key_id);
      expect((await x.call("GET", x.w(`/api-keys/${play.json.api_key_id}`))).status).toBe(200);
      expect((await x.call("GET", x.w("/api-keys?include_revoked=maybe"))).json.error.param).toBe("include_revoked");
    });

    test("patch changes name, scopes and expiry (null clears it); audited", async () => {
      const k = await create({ name: "before", scopes: ["usage:read"], expires_at: new Date(Date.now() + 60_000).toISOString() });
      const r = await x.call("PATCH", x.w(`/api-keys/${k.json.api_key_id}`), {
        body: { name: "after", scopes: ["budgets:read"], expires_at: null },
      });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ name: "after", scopes: ["budgets:read"], expires_at: null });
      // The cache sees the new scopes on the very next request.
      const list = await x.call("GET", x.w("/budgets"), { key: k.json.key });
      expect(list.status).toBe(200);
      expect((await x.call("GET", x.w("/usage"), { key: k.json.key })).status).toBe(403);
      expect((await x.auditRows()).some((a) => a.type === "api_key.updated" && a.targetId === k.json.api_key_id)).toBe(true);
      const bad = await x.call("PATCH", x.w(`/api-keys/${k.json.api_key_id}`), { body: { name: "" } });
      expect(bad.json.error.param).toBe("name");
    });

    test("revoke: 204, the key fails on the very next request, revoking again is a no-op", async () => {
      const k = await create({ name: "short-lived", scopes: ["usage:read"] });
      expect((await x.call("GET", "/v1/me", { key: k.json.key })).status).toBe(200);
      const r = await x.call("DELETE", x.w(`/api-keys/${k.json.api_key_id}`));
      expect(r.status).toBe(204);
      expect(r.text).toBe("");
      const after = await x.call("GET", "/v1/me", { key: k.json.key });
      expect(after.status).toBe(401);
      expect(after.json.error.code).toBe("invalid_api_key");
      expect((await x.call("DELETE", x.w(`/api-keys/${k.json.api_key_id}`))).status).toBe(204);
      const revoked = (await x.auditRows()).filter((a) => a.type === "api_key.revoked" && a.targetId === k.json.api_key_id);
      expect(revoked).toHaveLength(1);
      const got = await x.call("GET", x.w(`/api-keys/${k.json.api_key_id}`));
      expect(typeof got.json.revoked_at).toBe("string");
      const patch = await x.call("PATCH", x.w(`/api-keys/${k.json.api_key_id}`), { body: { name: "zombie" } });
      expect(patch.status).toBe(400);
    });

    test("unknown, malformed and foreign key IDs", async () => {
      const other = await x.otherWorkspace();
      const foreign = await x.call("POST", `/v1/workspaces/${other.ws}/api-keys`, {
        key: other.key,
        body: { name: "theirs", scopes: ["usage:read"] },
      });
      expect(foreign.status).toBe(201);
      for (const method of ["GET", "PATCH", "DELETE"]) {
        const body = method === "PATCH" ? { name: "x" } : undefined;
        expect((await x.call(method, x.w(`/api-keys/${crypto.randomUUID()}`), { body })).status).toBe(404);
        expect((await x.call(method, x.w(`/api-keys/${foreign.json.api_key_id}`), { body })).status).toBe(404);
        const bad = await x.call(method, x.w("/api-keys/not-a-uuid"), { body });
        expect(bad.status).toBe(400);
        expect(bad.json.error.param).toBe("api_key_id");
      }
      expect((await x.call("GET", "/v1/me", { key: foreign.json.key })).status).toBe(200);
      expect((await x.call("GET", `/v1/workspaces/${other.ws}/api-keys`)).status).toBe(404);
    });

    test("per-key usage aggregates only that key's rollups", async () => {
      const k = await create({ name: "metered", scopes: ["usage:read"] });
      const id = k.json.api_key_id;
      await x.insertRollups([
        { day: "2026-03-01", apiKeyId: id, requests: 3, errors: 1, inputTokens: 30, outputTokens: 60, costMicrodollars: 900 },
        { day: "2026-03-02", apiKeyId: id, requests: 2, inputTokens: 20, outputTokens: 40, costMicrodollars: 600 },
        { day: "2026-03-02", apiKeyId: "someone-else", requests: 50, costMicrodollars: 99_999 },
      ]);
      const r = await x.call("GET", x.w(`/api-keys/${id}/usage?start_date=2026-03-01&end_date=2026-03-31&group_by=day`));
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ api_key_id: id, group_by: "day", start_date: "2026-03-01", end_date: "2026-03-31" });
      expect(r.json.data.map((d: { group: string }) => d.group)).toEqual(["2026-03-01", "2026-03-02"]);
      expect(r.json.total).toEqual({
        requests: 5,
        errors: 1,
        input_tokens: 50,
        output_tokens: 100,
        total_tokens: 150,
        cost_microdollars: 1500,
      });
      expect((await x.call("GET", x.w(`/api-keys/${crypto.randomUUID()}/usage`))).status).toBe(404);
    });
  });
}
