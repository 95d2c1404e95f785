import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { openSession, type Session } from "./harness";

const kinds = await testDatabaseKinds();

for (const kind of kinds) {
  describe(`workspaces and routing defaults on ${kind}`, () => {
    let x: Session;
    beforeAll(async () => {
      x = await openSession(kind);
    });
    afterAll(async () => {
      await x.stop();
    });

    test("the list holds only the key's own workspace", async () => {
      await x.otherWorkspace();
      const r = await x.call("GET", "/v1/workspaces");
      expect(r.status).toBe(200);
      expect(r.json.count).toBe(1);
      expect(r.json.workspaces).toHaveLength(1);
      expect(Object.keys(r.json.workspaces[0]).sort()).toEqual(["created_at", "name", "updated_at", "workspace_id"]);
      expect(r.json.workspaces[0].workspace_id).toBe(x.ws);
    });

    test("get answers the workspace; another workspace's ID or garbage answers 404", async () => {
      expect((await x.call("GET", x.w())).json.workspace_id).toBe(x.ws);
      const other = await x.otherWorkspace();
      for (const id of [other.ws, "not-a-uuid", crypto.randomUUID()]) {
        const r = await x.call("GET", `/v1/workspaces/${id}`);
        expect(r.status).toBe(404);
        expect(r.json.error.code).toBe("not_found");
      }
      // The other workspace's own key cannot see ours either.
      expect((await x.call("GET", x.w(), { key: other.key })).status).toBe(404);
    });

    test("patch renames and records workspace.updated", async () => {
      const r = await x.call("PATCH", x.w(), { body: { name: "Production" } });
      expect(r.status).toBe(200);
      expect(r.json.name).toBe("Production");
      const audit = (await x.auditRows()).filter((a) => a.type === "workspace.updated");
      expect(audit.at(-1)?.targetId).toBe(x.ws);
      expect(JSON.parse(audit.at(-1)!.data)).toEqual({ name: "Production" });
    });

    test("patch rejects a bad name or any other field with 400 naming it", async () => {
      const cases: [unknown, string | null][] = [
        [{ name: "" }, "name"],
        [{ name: "x".repeat(101) }, "name"],
        [{ name: 5 }, "name"],
        [{}, "name"],
        [{ name: "ok", owner: "me" }, "owner"],
        [[1, 2], null],
      ];
      for (const [body, param] of cases) {
        const r = await x.call("PATCH", x.w(), { body });
        expect(r.status).toBe(400);
        expect(r.json.error).toMatchObject({ code: "invalid_parameter", param });
      }
      const bad = await x.call("PATCH", x.w(), { body: "{not json" });
      expect(bad.status).toBe(400);
      expect(bad.json.error.code).toBe("invalid_request");
    });

    test("routing defaults: never set → built-in effective values", async () => {
      const r = await x.call("GET", x.w("/routing-defaults"));
      expect(r.status).toBe(200);
      expect(r.json).toEqual({
        workspace_id: x.ws,
        optimize: "cost-focus",
        data_policy: "none",
        allow_fallbacks: true,
        max_fallback_attempts: 19,
        providers: [],
        exclude_providers: [],
        min_throughput_tps: null,
        ttft_percentile: "p50",
        throughput_percentile: "p50",
        min_success_rate: null,
        prefer: [],
        only_byok: false,
        only_platform: false,
        require_parameters: false,
        updated_at: null,
        propagation_status: null,
      });
    });

    test("patch changes only the fields present; the router's store sees it at once", async () => {
      let r = await x.call("PATCH", x.w("/routing-defaults"), { body: { optimize: "ttft", max_fallback_attempts: 3 } });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ optimize: "ttft", max_fallback_attempts: 3, data_policy: "none", propagation_status: null });
      r = await x.call("PATCH", x.w("/routing-defaults"), { body: { data_policy: "zdr", exclude_providers: ["alpha"] } });
      expect(r.json).toMatchObject({ optimize: "ttft", max_fallback_attempts: 3, data_policy: "zdr", exclude_providers: ["alpha"] });
      expect(typeof r.json.updated_at).toBe("string");
      const store = x.s.deps.management.routingDefaults;
      expect(store.get(x.ws)).toMatchObject({
        optimize: "ttft",
        max_fallback_attempts: 3,
        data_policy: "zdr",
        exclude_providers: ["alpha"],
      });
      expect(x.s.deps.inference.routingDefaults.get(x.ws)).toMatchObject({ optimize: "ttft" });
      // null resets one field to its built-in default.
      r = await x.call("PATCH", x.w("/routing-defaults"), { body: { optimize: null } });
      expect(r.json.optimize).toBe("cost-focus");
      expect(store.stored(x.ws)?.optimize).toBeUndefined();
      expect((await x.auditRows()).filter((a) => a.type === "routing_defaults.updated")).toHaveLength(3);
    });

    test("patch validation: 400 naming the field", async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ max_fallback_attempts: 0 }, "max_fallback_attempts"],
        [{ max_fallback_attempts: 20 }, "max_fallback_attempts"],
        [{ max_fallback_attempts: 2.5 }, "max_fallback_attempts"],
        [{ optimize: "fastest" }, "optimize"],
        [{ data_policy: "strict" }, "data_policy"],
        [{ allow_fallbacks: "yes" }, "allow_fallbacks"],
        [{ providers: ["alpha", "nope"] }, "providers[1]"],
        [{ exclude_providers: ["nope"] }, "exclude_providers[0]"],
        [{ mode: "pool" }, "mode"],
      ];
      for (const [body, param] of cases) {
        const r = await x.call("PATCH", x.w("/routing-defaults"), { body });
        expect(r.status).toBe(400);
        expect(r.json.error).toMatchObject({ code: "invalid_parameter", param });
      }
    });

    test("delete clears everything, answers the cleared record and is audited", async () => {
      await x.call("PATCH", x.w("/routing-defaults"), { body: { allow_fallbacks: false } });
      const r = await x.call("DELETE", x.w("/routing-defaults"));
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ optimize: "cost-focus", allow_fallbacks: true, max_fallback_attempts: 19, updated_at: null });
      expect(x.s.deps.management.routingDefaults.stored(x.ws)).toBeUndefined();
      expect((await x.auditRows()).some((a) => a.type === "routing_defaults.deleted")).toBe(true);
    });

    test("a change made by another process is picked up by reload()", async () => {
      const m = x.s.deps.management;
      await x.s.deps.db.tx((o) => m.repos.routingDefaults.patch(o, x.ws, { optimize: "tps" }, Date.now()));
      expect(m.routingDefaults.get(x.ws).optimize).toBe("cost-focus");
      await m.reload();
      expect(m.routingDefaults.get(x.ws).optimize).toBe("tps");
      await x.call("DELETE", x.w("/routing-defaults"));
    });

    test("routing defaults of another workspace answer 404, without a key 401", async () => {
      const other = await x.otherWorkspace();
      expect((await x.call("GET", `/v1/workspaces/${other.ws}/routing-defaults`)).status).toBe(404);
      expect((await x.call("PATCH", `/v1/workspaces/${other.ws}/routing-defaults`, { body: { optimize: "tps" } })).status).toBe(404);
      expect(x.s.deps.management.routingDefaults.stored(other.ws)).toBeUndefined();
      const r = await x.call("GET", x.w("/routing-defaults"), { key: null });
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe("invalid_api_key");
    });
  });
}
