// docs/contract.md "Rate limits, credits and budgets": with REDIS_URL set (shared mode) routing-affecting writes answer 202 with
// propagation_status "pending"; the change is committed and this instance enforces it at once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { openSession, type Session } from "./harness";
import { bodyMismatches, documentedBodies, routeOf } from "./response-check";
import { MANAGEMENT_ROUTES, type RouteId } from "../../../src/management/route-table";

const kinds = await testDatabaseKinds();

for (const kind of kinds) {
  describe(`shared mode (202) on ${kind}`, () => {
    let x: Session;
    /** Every management answer of the session, to hold its body against the route's schema for its status. */
    const seen: { id: RouteId; status: number; text: string }[] = [];
    beforeAll(async () => {
      x = await openSession(kind, { shared: true });
      const call = x.call;
      x.call = async (method, path, opts) => {
        const r = await call(method, path, opts);
        const id = routeOf(method, path);
        if (id) seen.push({ id, status: r.status, text: r.text });
        return r;
      };
    });
    afterAll(async () => {
      await x.stop();
    });

    test("routing defaults: PATCH and DELETE answer 202 pending, committed", async () => {
      const r = await x.call("PATCH", x.w("/routing-defaults"), { body: { optimize: "tps" } });
      expect(r.status).toBe(202);
      expect(r.json).toMatchObject({ optimize: "tps", propagation_status: "pending" });
      expect(x.s.deps.management.routingDefaults.get(x.ws).optimize).toBe("tps");
      expect((await x.call("GET", x.w("/routing-defaults"))).json).toMatchObject({ optimize: "tps", propagation_status: null });
      const d = await x.call("DELETE", x.w("/routing-defaults"));
      expect(d.status).toBe(202);
      expect(d.json.propagation_status).toBe("pending");
    });

    test("API keys: create 202 with the key, patch 202, revoke 202 with a pending body (and enforced here at once)", async () => {
      const c = await x.call("POST", x.w("/api-keys"), { body: { name: "p", scopes: ["usage:read"] } });
      expect(c.status).toBe(202);
      expect(c.json).toMatchObject({ propagation_status: "pending" });
      expect(c.json.key).toMatch(/^ak_/);
      const p = await x.call("PATCH", x.w(`/api-keys/${c.json.api_key_id}`), { body: { name: "q" } });
      expect(p.status).toBe(202);
      const d = await x.call("DELETE", x.w(`/api-keys/${c.json.api_key_id}`));
      expect(d.status).toBe(202);
      expect(d.json).toMatchObject({ api_key_id: c.json.api_key_id, propagation_status: "pending" });
      expect(typeof d.json.revoked_at).toBe("string");
      expect((await x.call("GET", "/v1/me", { key: c.json.key })).status).toBe(401);
    });

    test("budgets: create, patch and delete answer 202 pending", async () => {
      const c = await x.call("POST", x.w("/budgets"), { body: { scope: "workspace", period: "daily", limit: 1 } });
      expect(c.status).toBe(202);
      expect(c.json.propagation_status).toBe("pending");
      expect((await x.call("PATCH", x.w(`/budgets/${c.json.budget_id}`), { body: { limit: 2 } })).json.propagation_status).toBe("pending");
      const d = await x.call("DELETE", x.w(`/budgets/${c.json.budget_id}`));
      expect(d.status).toBe(202);
      expect(d.json).toEqual({ budget_id: c.json.budget_id, deleted: true, propagation_status: "pending" });
    });

    test("BYOK: create 202 pending (rule 6), patch and delete too", async () => {
      const c = await x.call("POST", x.w("/byok-keys"), { body: { provider: "alpha", api_key: "sk-good-shared-0123456789" } });
      expect(c.status).toBe(202);
      expect(c.json.propagation_status).toBe("pending");
      expect((await x.call("PATCH", x.w(`/byok-keys/${c.json.id}`), { body: { disabled: true } })).status).toBe(202);
      const d = await x.call("DELETE", x.w(`/byok-keys/${c.json.id}`));
      expect(d.status).toBe(202);
      expect(d.json).toEqual({ id: c.json.id, deleted: true, propagation_status: "pending" });
    });

    test("writes that route nothing keep their plain statuses", async () => {
      expect((await x.call("PATCH", x.w(), { body: { name: "Shared" } })).status).toBe(200);
      expect((await x.call("POST", x.w("/members"), { body: { email: "s@example.com" } })).status).toBe(201);
    });

    test("every 2xx body matches its route's documented schema (202 bodies included)", () => {
      const docs = documentedBodies(x.s.deps);
      const ok = seen.filter((r) => r.status >= 200 && r.status < 300);
      const accepted = new Set(ok.filter((r) => r.status === 202).map((r) => r.id));
      const pending = (Object.keys(MANAGEMENT_ROUTES) as RouteId[]).filter((id) => MANAGEMENT_ROUTES[id].pending);
      expect([...accepted].sort()).toEqual(pending.sort());
      expect(ok.flatMap((r) => bodyMismatches(docs, r.id, r.status, r.text))).toEqual([]);
    });
  });
}
