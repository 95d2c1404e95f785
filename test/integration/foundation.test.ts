import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, type InProcessServer } from "../support/server";
import { testDatabaseKinds } from "../support/databases";
import { eventually } from "../support/spawn";
import { SCOPES } from "../../src/auth/scopes";

const kinds = await testDatabaseKinds();

for (const kind of kinds) {
  describe(`foundation on ${kind}`, () => {
    let s: InProcessServer;
    beforeAll(async () => {
      s = await startServer({ db: kind });
    });
    afterAll(async () => {
      await s.stop();
    });

    test("healthz answers 200 and readyz 200 once migrated", async () => {
      expect((await s.fetch("/healthz", { key: null })).status).toBe(200);
      const r = await s.fetch("/readyz", { key: null });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ status: "ready" });
    });

    test("/v1/me returns the admin key's identity with every scope", async () => {
      const r = await s.fetch("/v1/me");
      expect(r.status).toBe(200);
      const me = (await r.json()) as Record<string, unknown>;
      expect(me.workspace_id).toBe(s.workspaceId);
      expect(me.key_prefix).toBe(s.adminKey.slice(0, 10));
      expect(Object.keys(me).sort()).toEqual(["api_key_id", "created_at", "expires_at", "key_prefix", "name", "scopes", "workspace_id"]);
      expect((me.scopes as string[]).length).toBe(SCOPES.length);
    });

    const almost = (key: string) =>
      [
        ["missing", null],
        ["wrong prefix", key.replace(/^ak_/, "sk_")],
        ["one char off", key.slice(0, -1) + (key.endsWith("a") ? "b" : "a")],
        ["truncated", key.slice(0, 20)],
        ["not bearer", `Basic ${key}`],
      ] as const;

    test("keys that are almost right get 401 invalid_api_key in the error envelope", async () => {
      for (const [, bad] of almost(s.adminKey)) {
        const headers: Record<string, string> = {};
        if (bad?.startsWith("Basic")) headers.authorization = bad;
        const r = await s.fetch("/v1/me", { key: bad?.startsWith("Basic") ? null : bad, headers });
        expect(r.status).toBe(401);
        const body = (await r.json()) as { error: Record<string, unknown> };
        expect(body.error).toMatchObject({
          code: "invalid_api_key",
          type: "authentication_error",
          param: null,
          doc_url: "/docs/errors#invalid_api_key",
        });
        expect(r.headers.get("x-request-id")).toBeTruthy();
      }
    });

    test("a revoked or expired key is refused on the very next request", async () => {
      const { row, key } = await s.deps.repos.apiKeys.create({ workspaceId: s.workspaceId, name: "tmp", scopes: [] });
      expect((await s.fetch("/v1/me", { key })).status).toBe(200);
      const revoked = await s.deps.repos.apiKeys.update(s.workspaceId, row.id, { revokedAt: Date.now() });
      s.deps.keys.put(revoked!);
      expect((await s.fetch("/v1/me", { key })).status).toBe(401);
      const e = await s.deps.repos.apiKeys.create({ workspaceId: s.workspaceId, name: "exp", scopes: [], expiresAt: Date.now() - 1 });
      const r = await s.fetch("/v1/me", { key: e.key });
      expect(r.status).toBe(401);
      expect(((await r.json()) as { error: { message: string } }).error.message).toContain("expired");
    });

    test("unknown routes answer 404 not_found in the envelope with a request id", async () => {
      const r = await s.fetch("/v1/nope");
      expect(r.status).toBe(404);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("not_found");
      expect(r.headers.get("x-request-id")).toMatch(/^req_/);
    });

    test("a valid client X-Request-ID is honoured and an invalid one replaced", async () => {
      const ok = await s.fetch("/healthz", { headers: { "x-request-id": "trace-123_abc" } });
      expect(ok.headers.get("x-request-id")).toBe("trace-123_abc");
      const bad = await s.fetch("/healthz", { headers: { "x-request-id": "has spaces and <tags>" } });
      expect(bad.headers.get("x-request-id")).toMatch(/^req_/);
    });

    test("every request logs one JSON line without the key", async () => {
      await s.fetch("/v1/me", { headers: { "x-request-id": "log-check-1" } });
      // The line is written after the response has gone out: poll for it.
      const find = () => s.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.request_id === "log-check-1");
      await eventually(() => find() !== undefined, 2_000);
      const line = find();
      expect(line).toMatchObject({ msg: "request", method: "GET", path: "/v1/me", status: 200 });
      expect(s.logs.join("\n")).not.toContain(s.adminKey);
    });

    test("openapi.json, /docs and /docs/errors are served", async () => {
      const spec = (await (await s.fetch("/openapi.json", { key: null })).json()) as { paths: Record<string, unknown> };
      expect(spec.paths["/v1/me"]).toBeDefined();
      const docs = await (await s.fetch("/docs", { key: null })).text();
      expect(docs).toContain("/v1/me");
      const errs = await (await s.fetch("/docs/errors", { key: null })).text();
      expect(errs).toContain('id="invalid_api_key"');
    });
  });
}

describe("uncaught exceptions", () => {
  test("become a fixed 500 internal_error without a stack, logged with the request id", async () => {
    const s = await startServer();
    try {
      // A key row the repository hands back broken: reading any of its fields throws inside the handler.
      // (A lookup that rejects is the database being away, which answers 503 service_unavailable instead.)
      const broken = new Proxy(
        {},
        {
          get: (_t, name) => {
            if (name === "then") return undefined; // not a thenable, so the promise resolves to it
            throw new Error("SQLiteError: Database row corrupt");
          },
        },
      );
      s.deps.repos.apiKeys.byHash = () => Promise.resolve(broken as never);
      const r = await s.fetch("/v1/me", { key: "ak_" + "Z".repeat(40), headers: { "x-request-id": "boom-1" } });
      expect(r.status).toBe(500);
      const body = (await r.json()) as { error: Record<string, unknown> };
      expect(body.error).toMatchObject({ code: "internal_error", type: "api_error", param: null, doc_url: "/docs/errors#internal_error" });
      expect(JSON.stringify(body)).not.toMatch(/at .*\.ts|stack|Database/);
      expect(r.headers.get("x-request-id")).toBe("boom-1");
      const logged = s.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === "unhandled error");
      expect(logged).toMatchObject({ request_id: "boom-1", level: "error" });
    } finally {
      await s.stop().catch(() => {});
    }
  });
});
