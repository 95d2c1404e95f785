// Generated from the route table: every management route refuses a missing key (401), a key lacking any
// one of its scopes (403 insufficient_scope) and another workspace's ID (404), and accepts a key holding
// exactly its scopes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { SCOPES, type Scope } from "../../../src/auth/scopes";
import { MANAGEMENT_ROUTES, rateClassFor, type RouteSpec } from "../../../src/management/route-table";
import { openSession, type Session } from "./harness";

const kinds = await testDatabaseKinds();
const ROUTES = Object.entries(MANAGEMENT_ROUTES as Record<string, RouteSpec>);
const PRIVATE = ROUTES.filter(([, r]) => !r.public);

function fill(path: string, workspaceId: string): string {
  return path
    .replace(":workspace_id", workspaceId)
    .replace(":request_id", "req_matrix")
    .replace(/:[a-z_]+_id/g, () => crypto.randomUUID());
}

test("every route has scopes (or is public) and a rate class the limiter can look up", () => {
  for (const [id, r] of ROUTES) {
    expect(r.public || r.scopes.length > 0).toBe(true);
    expect(rateClassFor(r.method, r.path)).toBe(r.rateClass);
    expect(["management_reads", "management_writes", "key_creation"]).toContain(r.rateClass);
    if (r.method === "GET") expect(`${id}:${r.rateClass}`).toBe(`${id}:management_reads`);
  }
  expect(rateClassFor("POST", "/v1/workspaces/:workspace_id/api-keys")).toBe("key_creation");
  expect(rateClassFor("GET", "/v1/chat/completions")).toBeUndefined();
});

for (const kind of kinds) {
  describe(`scope matrix on ${kind}`, () => {
    let x: Session;
    const without = new Map<Scope, string>();
    const exactly = new Map<string, string>();
    beforeAll(async () => {
      x = await openSession(kind);
      for (const s of SCOPES) without.set(s, await x.keyWith(SCOPES.filter((o) => o !== s)));
      for (const [, r] of PRIVATE) {
        const k = r.scopes.join(",");
        if (!exactly.has(k)) exactly.set(k, await x.keyWith(r.scopes));
      }
    });
    afterAll(async () => {
      await x.stop();
    });

    const send = (r: RouteSpec, path: string, key: string | null) =>
      x.call(r.method, path, { key, body: r.method === "POST" || r.method === "PATCH" ? {} : undefined });

    for (const [id, r] of PRIVATE) {
      test(`${id}: ${r.method} ${r.path} needs ${r.scopes.join(" + ")}`, async () => {
        const path = fill(r.path, x.ws);
        const none = await send(r, path, null);
        expect(none.status).toBe(401);
        expect(none.json.error.code).toBe("invalid_api_key");
        for (const s of r.scopes) {
          const res = await send(r, path, without.get(s)!);
          expect(`${s}:${res.status}`).toBe(`${s}:403`);
          expect(res.json.error).toMatchObject({ code: "insufficient_scope", type: "permission_error" });
          expect(res.json.error.message).toContain(s);
        }
        const ok = await send(r, path, exactly.get(r.scopes.join(","))!);
        expect([401, 403]).not.toContain(ok.status);
        if (r.path.includes(":workspace_id")) {
          const other = await send(r, fill(r.path, crypto.randomUUID()), x.adminKey);
          expect(other.status).toBe(404);
          expect(other.json.error.code).toBe("not_found");
        }
      });
    }

    test("the public invite route needs no key", async () => {
      const r = await x.call("POST", "/v1/invites/accept", { key: null, body: { token: "inv_unknown" } });
      expect(r.status).toBe(404);
    });
  });
}
