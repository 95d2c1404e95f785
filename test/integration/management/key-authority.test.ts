// Issue 52 items 7, 8, 12 and 13 on the API key routes and management lists: a key cannot act on a
// key wider than itself, playground keys are inference-only and expire by default, list offsets and
// date-times are bounded and real, and a write that fails after its first statement leaves nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { testDatabaseKinds } from "../../support/databases";
import { startServer } from "../../support/server";
import { openSession, type Session } from "./harness";

const kinds = await testDatabaseKinds();

for (const kind of kinds) {
  describe(`key authority and management limits on ${kind}`, () => {
    let x: Session;
    beforeAll(async () => {
      x = await openSession(kind);
    });
    afterAll(async () => {
      await x.stop();
    });

    const keyRows = async () => x.s.deps.db.orm.select().from(x.s.deps.db.t.apiKeys);
    const adminId = async () => (await x.call("GET", "/v1/me")).json.api_key_id as string;

    test("a keys:write key cannot rename, re-scope, un-expire or revoke a key wider than itself: 403 insufficient_scope", async () => {
      const writer = await x.keyWith(["keys:read", "keys:write", "usage:read"]);
      const wider = await x.call("POST", x.w("/api-keys"), {
        body: { name: "wide", scopes: ["usage:read", "billing:read"], expires_at: new Date(Date.now() + 60_000).toISOString() },
      });
      for (const target of [await adminId(), wider.json.api_key_id as string]) {
        for (const body of [{ name: "mine" }, { scopes: ["usage:read"] }, { expires_at: null }]) {
          const r = await x.call("PATCH", x.w(`/api-keys/${target}`), { key: writer, body });
          expect(r.status).toBe(403);
          expect(r.json.error).toMatchObject({ code: "insufficient_scope", type: "permission_error" });
        }
        const del = await x.call("DELETE", x.w(`/api-keys/${target}`), { key: writer });
        expect(del.status).toBe(403);
      }
      const after = (await keyRows()).find((k) => k.id === wider.json.api_key_id)!;
      expect(after).toMatchObject({ name: "wide", revokedAt: null });
      expect(after.expiresAt).not.toBeNull();
      expect((await x.call("GET", "/v1/me")).status).toBe(200);
      // A key no wider than the caller (here: a subset) is still the caller's to manage.
      const narrow = await x.call("POST", x.w("/api-keys"), { key: writer, body: { name: "narrow", scopes: ["usage:read"] } });
      expect(narrow.status).toBe(201);
      const renamed = await x.call("PATCH", x.w(`/api-keys/${narrow.json.api_key_id}`), { key: writer, body: { name: "renamed" } });
      expect(renamed.status).toBe(200);
      expect((await x.call("DELETE", x.w(`/api-keys/${narrow.json.api_key_id}`), { key: writer })).status).toBe(204);
      const grant = await x.call("POST", x.w("/api-keys"), { key: writer, body: { name: "g", scopes: ["audit:read"] } });
      expect(grant.status).toBe(400);
    });

    test("playground keys are inference-only, expire after 24 h by default, and are listed only with include_playground=true", async () => {
      const scoped = await x.call("POST", x.w("/api-keys"), { body: { name: "p", scopes: ["keys:write"], playground: true } });
      expect(scoped.status).toBe(400);
      expect(scoped.json.error).toMatchObject({ code: "invalid_parameter", param: "scopes" });
      expect((await x.call("POST", x.w("/api-keys"), { body: { name: "n", scopes: [] } })).json.error.param).toBe("scopes");
      const before = Date.now();
      const p = await x.call("POST", x.w("/api-keys"), { body: { name: "play", scopes: [], playground: true } });
      expect(p.status).toBe(201);
      expect(p.json.scopes).toEqual([]);
      const exp = Date.parse(p.json.expires_at);
      expect(exp).toBeGreaterThanOrEqual(before + 24 * 3_600_000);
      expect(exp).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000);
      expect((await x.call("GET", "/v1/me", { key: p.json.key })).status).toBe(200);
      expect((await x.call("GET", x.w("/api-keys"), { key: p.json.key })).status).toBe(403);
      const rescope = await x.call("PATCH", x.w(`/api-keys/${p.json.api_key_id}`), { body: { scopes: ["usage:read"] } });
      expect(rescope.json.error).toMatchObject({ code: "invalid_parameter", param: "scopes" });
      const ids = async (q: string) =>
        (await x.call("GET", x.w(`/api-keys${q}`))).json.api_keys.map((k: { api_key_id: string }) => k.api_key_id);
      expect(await ids("")).not.toContain(p.json.api_key_id);
      expect(await ids("?include_playground=true")).toContain(p.json.api_key_id);
    });

    test("list offset has a maximum: offset=1e20 is 400 invalid_parameter, not 500", async () => {
      for (const path of ["/requests", "/audit-logs"]) {
        const r = await x.call("GET", x.w(`${path}?offset=1e20`));
        expect(`${path}:${r.status}`).toBe(`${path}:400`);
        expect(r.json.error).toMatchObject({ code: "invalid_parameter", param: "offset" });
        expect((await x.call("GET", x.w(`${path}?offset=1000000000`))).status).toBe(200);
      }
    });

    test("an impossible date-time is 400 and nothing is written (create commits no key, patch keeps the expiry)", async () => {
      const count = (await keyRows()).length;
      for (const bad of ["2030-01-01T25:00Z", "2030-02-30T10:00Z", "2030-13-01T00:00Z", "2030-01-01T10:60Z"]) {
        const r = await x.call("POST", x.w("/api-keys"), { body: { name: "bad-date", scopes: ["usage:read"], expires_at: bad } });
        expect(`${bad}:${r.status}`).toBe(`${bad}:400`);
        expect(r.json.error).toMatchObject({ code: "invalid_parameter", param: "expires_at" });
      }
      expect((await keyRows()).length).toBe(count);
      const expires = new Date(Date.now() + 3_600_000).toISOString();
      const k = await x.call("POST", x.w("/api-keys"), { body: { name: "dated", scopes: ["usage:read"], expires_at: expires } });
      const patch = await x.call("PATCH", x.w(`/api-keys/${k.json.api_key_id}`), { body: { expires_at: "2030-01-01T25:00Z" } });
      expect(patch.status).toBe(400);
      expect((await x.call("GET", x.w(`/api-keys/${k.json.api_key_id}`))).json.expires_at).toBe(expires);
      for (const path of ["/requests", "/audit-logs"]) {
        for (const q of ["start_date=2030-02-30", "end_date=2030-01-01T25:00:00Z"]) {
          const r = await x.call("GET", x.w(`${path}?${q}`));
          expect(`${path}?${q}:${r.status}`).toBe(`${path}?${q}:400`);
        }
      }
    });

    /** Makes the database refuse every insert into `table` (a real failure after the write's first statement) until undone. */
    const refuseInserts = async (table: string): Promise<() => Promise<void>> => {
      const db = x.s.deps.db;
      const exec = (q: string) => (db.dialect === "sqlite" ? (db.orm as any).run(sql.raw(q)) : (db.orm as any).execute(sql.raw(q)));
      const name = `refuse_${table}`;
      if (db.dialect === "sqlite") {
        await exec(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'refused'); END`);
        return async () => void (await exec(`DROP TRIGGER ${name}`));
      }
      await exec(`CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql`);
      await exec(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
      return async () => void (await exec(`DROP TRIGGER ${name} ON ${table}`));
    };

    test("no write is half-done: a create or update whose audit row fails leaves no key, budget or change behind", async () => {
      const db = x.s.deps.db;
      const k = await x.call("POST", x.w("/api-keys"), { body: { name: "stable", scopes: ["usage:read"] } });
      const undo = await refuseInserts("audit_events");
      try {
        const keys = (await keyRows()).length;
        const budgets = (await db.orm.select().from(db.t.budgets)).length;
        expect((await x.call("POST", x.w("/api-keys"), { body: { name: "half", scopes: ["usage:read"] } })).status).toBe(500);
        expect((await x.call("PATCH", x.w(`/api-keys/${k.json.api_key_id}`), { body: { name: "half" } })).status).toBe(500);
        expect((await x.call("DELETE", x.w(`/api-keys/${k.json.api_key_id}`))).status).toBe(500);
        const budget = { scope: "workspace", period: "daily", limit: 5 };
        expect((await x.call("POST", x.w("/budgets"), { body: budget })).status).toBe(500);
        expect((await keyRows()).length).toBe(keys);
        expect((await keyRows()).find((r) => r.id === k.json.api_key_id)).toMatchObject({ name: "stable", revokedAt: null });
        expect((await db.orm.select().from(db.t.budgets)).length).toBe(budgets);
        expect((await x.call("GET", "/v1/me", { key: k.json.key })).status).toBe(200);
      } finally {
        await undo();
      }
    });

    test("no write is half-done: a create whose Idempotency-Key record fails leaves no budget or BYOK key behind", async () => {
      const db = x.s.deps.db;
      const count = async () => ({
        budgets: (await db.orm.select().from(db.t.budgets)).length,
        byok: (await db.orm.select().from(db.t.byokKeys)).length,
      });
      const before = await count();
      const budget = { scope: "workspace", period: "weekly", limit: 5 };
      const byok = { provider: "alpha", api_key: "sk-alpha-valid-0123456789" };
      const undo = await refuseInserts("idempotency_records");
      try {
        const headers = { "Idempotency-Key": "half-done-1" };
        expect((await x.call("POST", x.w("/budgets"), { body: budget, headers })).status).toBe(500);
        expect((await x.call("POST", x.w("/byok-keys"), { body: byok, headers })).status).toBe(500);
        expect(await count()).toEqual(before);
      } finally {
        await undo();
      }
      // The retry with the same key now creates each once, and a replay answers the same.
      const headers = { "Idempotency-Key": "half-done-1" };
      const first = await x.call("POST", x.w("/budgets"), { body: budget, headers });
      expect(first.status).toBe(201);
      const again = await x.call("POST", x.w("/budgets"), { body: budget, headers });
      expect(again.status).toBe(201);
      expect(again.json.budget_id).toBe(first.json.budget_id);
      const key = await x.call("POST", x.w("/byok-keys"), { body: byok, headers });
      expect(key.status).toBe(201);
      expect((await x.call("POST", x.w("/byok-keys"), { body: byok, headers })).json.id).toBe(key.json.id);
      expect(await count()).toEqual({ budgets: before.budgets + 1, byok: before.byok + 1 });
    });
  });
}

test("a playground key's default expiry is configurable: playground_key_ttl_hours", async () => {
  const s = await startServer({ db: "sqlite", configFile: { playground_key_ttl_hours: 2 } });
  try {
    const before = Date.now();
    const r = await s.fetch(`/v1/workspaces/${s.workspaceId}/api-keys`, {
      method: "POST",
      body: JSON.stringify({ name: "play", scopes: [], playground: true }),
    });
    expect(r.status).toBe(201);
    const exp = Date.parse(((await r.json()) as { expires_at: string }).expires_at);
    expect(exp).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
    expect(exp).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);
  } finally {
    await s.stop();
  }
});
