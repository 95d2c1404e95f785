// Secrets as canaries: every platform key, API key, BYOK secret and invite token carries a unique
// marker; a session over every management route (errors, replays and debug logging included) must
// never show a marker in a response body (beyond the one create response that hands a key out), a log
// line, an audit row, an idempotency record or the stored BYOK rows.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { MANAGEMENT_ROUTES, type RouteId } from "../../../src/management/route-table";
import { randomBase62 } from "../../../src/platform/ids";
import { openSession, type Session } from "./harness";
import { bodyMismatches, documentedBodies } from "./response-check";

const kinds = await testDatabaseKinds();
const marker = (name: string) => `CANARY${name}${randomBase62(10)}`;

for (const kind of kinds) {
  describe(`canary secrets on ${kind}`, () => {
    const adminMarker = marker("admin");
    const adminKey = `ak_Adm1n00${adminMarker}${randomBase62(12)}`;
    const platformMarker = marker("platform");
    const byok = {
      good: `sk-good-${marker("byokgood")}-tail`,
      good2: `sk-good-${marker("byokgoodtwo")}-tail`,
      rejected: `sk-rejected-${marker("byokrejected")}-tail`,
      down: `sk-down-${marker("byokdown")}-tail`,
      hang: `sk-hang-${marker("byokhang")}-tail`,
      misplaced: `sk-good-${marker("misplaced")}-tail`,
      wrongKey: `ak_${marker("wrongkey")}${randomBase62(20)}`,
    };
    /** Marker → response bodies allowed to hold it (the create response that hands it out). */
    const allowed = new Map<string, string>();
    const hit = new Set<RouteId>();
    /** Routes whose success body was checked against their documented schema, and every departure found. */
    const checked = new Set<RouteId>();
    const drift: string[] = [];
    let x: Session;
    let docs: ReturnType<typeof documentedBodies>;
    beforeAll(async () => {
      x = await openSession(kind, { adminKey, platformKey: `sk-platform-${platformMarker}-0123456789` });
      docs = documentedBodies(x.s.deps);
    });
    afterAll(async () => {
      await x.stop();
    });

    const call = async (id: RouteId, path: string, opts: Parameters<Session["call"]>[2] = {}) => {
      hit.add(id);
      const res = await x.call(MANAGEMENT_ROUTES[id].method, path, opts);
      if (res.status >= 200 && res.status < 300) {
        checked.add(id);
        drift.push(...bodyMismatches(docs, id, res.status, res.text));
      }
      return res;
    };

    test("a session over every route, errors included", async () => {
      const w = x.w;
      await call("workspaces.list", "/v1/workspaces");
      await call("workspaces.get", w());
      await call("workspaces.update", w(), { body: { name: "Canary" } });
      await call("workspaces.update", w(), { body: { name: "" } });
      await call("workspaces.get", w(), { key: byok.wrongKey });
      await call("routing.get", w("/routing-defaults"));
      await call("routing.update", w("/routing-defaults"), { body: { optimize: "ttft", providers: ["alpha"] } });
      await call("routing.update", w("/routing-defaults"), { body: { max_fallback_attempts: 99 } });
      await call("routing.delete", w("/routing-defaults"));
      await call("routingHealth.get", "/v1/routing/health");

      // API keys: each created key's secret part is a marker allowed only in its own create response.
      const created = await call("apiKeys.create", w("/api-keys"), { body: { name: "canary", scopes: ["usage:read", "keys:read"] } });
      allowed.set(created.json.key.slice(10), created.text);
      await call("apiKeys.create", w("/api-keys"), { body: { name: "bad", scopes: ["nope"] } });
      const id = created.json.api_key_id;
      await call("apiKeys.list", w("/api-keys?include_revoked=true"));
      await call("apiKeys.get", w(`/api-keys/${id}`));
      await call("apiKeys.update", w(`/api-keys/${id}`), { body: { name: "renamed" } });
      await call("apiKeys.usage", w(`/api-keys/${id}/usage`));
      await call("apiKeys.list", w("/api-keys"), { key: created.json.key });
      await call("apiKeys.revoke", w(`/api-keys/${id}`));
      await call("apiKeys.get", w(`/api-keys/${id}`), { key: created.json.key });

      // BYOK: accepted, rejected, unavailable, timing out, misplaced secrets, malformed JSON, replays.
      const good = await call("byok.create", w("/byok-keys"), {
        body: { provider: "alpha", api_key: byok.good },
        headers: { "idempotency-key": "canary-1" },
      });
      expect(good.status).toBe(201);
      await call("byok.create", w("/byok-keys"), {
        body: { provider: "alpha", api_key: byok.good },
        headers: { "idempotency-key": "canary-1" },
      });
      await call("byok.create", w("/byok-keys"), {
        body: { provider: "alpha", api_key: byok.good2 },
        headers: { "idempotency-key": "canary-1" },
      });
      expect((await call("byok.create", w("/byok-keys"), { body: { provider: "alpha", api_key: byok.rejected } })).status).toBe(400);
      expect((await call("byok.create", w("/byok-keys"), { body: { provider: "alpha", api_key: byok.down } })).status).toBe(502);
      expect((await call("byok.create", w("/byok-keys"), { body: { provider: "alpha", api_key: byok.hang } })).status).toBe(502);
      x.mock.release();
      await call("byok.create", w("/byok-keys"), { body: { provider: byok.misplaced, api_key: byok.misplaced } });
      await call("byok.create", w("/byok-keys"), { body: { provider: "beta", api_key: byok.misplaced, name: byok.misplaced.repeat(5) } });
      await call("byok.create", w("/byok-keys"), { body: { provider: "alpha", api_key: byok.misplaced, secret: byok.misplaced } });
      await call("byok.create", w("/byok-keys"), { body: `{"provider":"alpha","api_key":"${byok.misplaced}"` });
      await call("byok.create", w("/byok-keys"), {
        body: { provider: "alpha", api_key: byok.misplaced },
        headers: { "idempotency-key": "bad key!" },
      });
      await call("byok.list", w("/byok-keys"));
      await call("byok.get", w(`/byok-keys/${good.json.id}`));
      await call("byok.update", w(`/byok-keys/${good.json.id}`), { body: { name: "main", account_tier: "tier-1" } });
      await call("byok.update", w(`/byok-keys/${good.json.id}`), { body: { api_key: byok.misplaced } });
      expect(x.s.deps.management.byok.defaultKeyFor(x.ws, "alpha")?.secret).toBe(byok.good);
      await call("byok.delete", w(`/byok-keys/${good.json.id}`));

      const budget = await call("budgets.create", w("/budgets"), {
        body: { scope: "byok", scope_id: "alpha", period: "weekly", limit: 3 },
        headers: { "idempotency-key": "b-1" },
      });
      await call("budgets.create", w("/budgets"), {
        body: { scope: "byok", scope_id: "alpha", period: "weekly", limit: 3 },
        headers: { "idempotency-key": "b-1" },
      });
      await call("budgets.create", w("/budgets"), { body: { scope: "byok", scope_id: byok.misplaced, period: "weekly", limit: 3 } });
      await call("budgets.list", w("/budgets"));
      await call("budgets.get", w(`/budgets/${budget.json.budget_id}`));
      await call("budgets.update", w(`/budgets/${budget.json.budget_id}`), { body: { limit: 4.5, enforce: false } });
      await call("budgets.update", w(`/budgets/${budget.json.budget_id}`), { body: { limit: -1 } });
      await call("budgets.delete", w(`/budgets/${budget.json.budget_id}`));

      // Two attempts: a failed first one no route decision was kept for, then the final one with its decision.
      const decision = { ttft_ms_estimate: 420, throughput_tps_estimate: 61.5, exploration: false, sticky: true };
      const warning = { type: "unsupported_parameter", code: "dropped", message: "logit_bias is not supported" };
      await x.insertRecords([
        { requestId: "req_canary", apiKeySource: "byok", attempt: 1, isFinalAttempt: false, success: false, statusCode: 503 },
        {
          requestId: "req_canary",
          apiKeySource: "byok",
          attempt: 2,
          tags: JSON.stringify(["a"]),
          customFields: JSON.stringify({ team: "x" }),
          routingDecision: JSON.stringify({ ...decision, warnings: [warning] }),
        },
      ]);
      await call("usage.get", w("/usage?group_by=provider"));
      await call("usage.series", w("/usage/series?interval=hour&group_by=api_key"));
      await call("requests.list", w("/requests?limit=500"));
      await call("requests.list", w("/requests"));
      await call("requests.get", w("/requests/req_canary"));
      await call("billing.balance", w("/billing/balance"));

      const member = await call("members.create", w("/members"), { body: { email: "c@example.com", role: "admin" } });
      await call("members.list", w("/members"));
      await call("members.update", w(`/members/${member.json.member_id}`), { body: { role: "viewer" } });
      await call("members.delete", w(`/members/${member.json.member_id}`));
      const invite = await call("invites.create", w("/invites"), { body: { email: "i@example.com" } });
      allowed.set(invite.json.token, invite.text);
      await call("invites.list", w("/invites"));
      await call("invites.accept", "/v1/invites/accept", { key: null, body: { token: invite.json.token } });
      await call("invites.accept", "/v1/invites/accept", { key: null, body: { token: invite.json.token } });
      const second = await call("invites.create", w("/invites"), { body: { email: "j@example.com" } });
      allowed.set(second.json.token, second.text);
      await call("invites.delete", w(`/invites/${second.json.invite_id}`));
      await call("audit.list", w("/audit-logs"));

      expect([...hit].sort()).toEqual((Object.keys(MANAGEMENT_ROUTES) as RouteId[]).sort());
    });

    test("every success body matches its route's documented schema", () => {
      expect([...checked].sort()).toEqual((Object.keys(MANAGEMENT_ROUTES) as RouteId[]).sort());
      expect(drift).toEqual([]);
    });

    test("no marker appears in any response body, log line, audit row or stored record", async () => {
      const markers = [
        adminMarker,
        platformMarker,
        ...Object.values(byok).map((s) => s.replace(/^(sk-[a-z]+-|ak_)/, "").replace(/-tail$/, "")),
        ...allowed.keys(),
      ];
      // The test can fail: the markers did travel (the provider saw them, create responses carry keys).
      expect(x.mock.calls()).toBeGreaterThan(3);
      for (const [m, body] of allowed) expect(body).toContain(m);
      expect(x.s.logs.length).toBeGreaterThan(20);
      expect(x.s.logs.some((l) => l.includes('"level":"debug"'))).toBe(true);

      const db = x.s.deps.db;
      const stored = {
        audit: JSON.stringify(await db.orm.select().from(db.t.auditEvents)),
        idempotency: JSON.stringify(await db.orm.select().from(db.t.idempotencyRecords)),
        byok: JSON.stringify(await db.orm.select().from(db.t.byokKeys)),
        invites: JSON.stringify(await db.orm.select().from(db.t.invites)),
        apiKeys: JSON.stringify(await db.orm.select().from(db.t.apiKeys)),
      };
      expect(stored.audit.length).toBeGreaterThan(100);
      const leaks: string[] = [];
      for (const m of markers) {
        x.bodies.forEach((b, i) => {
          if (b.includes(m) && allowed.get(m) !== b) leaks.push(`response #${i}: ${m}`);
        });
        x.s.logs.forEach((l, i) => {
          if (l.includes(m)) leaks.push(`log line #${i}: ${m}`);
        });
        for (const [table, text] of Object.entries(stored)) if (text.includes(m)) leaks.push(`${table}: ${m}`);
      }
      expect(leaks).toEqual([]);
    });
  });
}
