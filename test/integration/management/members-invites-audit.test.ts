import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { sha256Hex } from "../../../src/platform/ids";
import { openSession, type Session } from "./harness";

const kinds = await testDatabaseKinds();

for (const kind of kinds) {
  describe(`members, invites and the audit log on ${kind}`, () => {
    let x: Session;
    beforeAll(async () => {
      x = await openSession(kind);
    });
    afterAll(async () => {
      await x.stop();
    });

    test("members: add, list, change role, remove; duplicates and bad roles are 400; audited", async () => {
      const owner = await x.call("POST", x.w("/members"), { body: { email: "Owner@Example.com", role: "owner" } });
      expect(owner.status).toBe(201);
      expect(Object.keys(owner.json).sort()).toEqual(["created_at", "email", "member_id", "role", "workspace_id"]);
      expect(owner.json).toMatchObject({ email: "owner@example.com", role: "owner" });
      const dev = await x.call("POST", x.w("/members"), { body: { email: "dev@example.com" } });
      expect(dev.json.role).toBe("member");
      expect((await x.call("POST", x.w("/members"), { body: { email: "DEV@example.com" } })).json.error).toMatchObject({
        code: "invalid_parameter",
        param: "email",
      });
      expect((await x.call("POST", x.w("/members"), { body: { email: "not-an-email" } })).json.error.param).toBe("email");
      expect((await x.call("POST", x.w("/members"), { body: { email: "a@b.co", role: "root" } })).json.error.param).toBe("role");
      const list = await x.call("GET", x.w("/members"));
      expect(list.json).toMatchObject({ count: 2 });
      const patched = await x.call("PATCH", x.w(`/members/${dev.json.member_id}`), { body: { role: "admin" } });
      expect(patched.status).toBe(200);
      expect(patched.json.role).toBe("admin");
      expect((await x.call("DELETE", x.w(`/members/${dev.json.member_id}`))).status).toBe(204);
      expect((await x.call("DELETE", x.w(`/members/${dev.json.member_id}`))).status).toBe(404);
      const types = (await x.auditRows()).filter((a) => a.targetId === dev.json.member_id).map((a) => a.type);
      expect(types).toEqual(["member.added", "member.updated", "member.removed"]);
    });

    test("the last owner can be neither demoted nor removed", async () => {
      const owner = (await x.call("GET", x.w("/members"))).json.members.find((m: { role: string }) => m.role === "owner");
      const demote = await x.call("PATCH", x.w(`/members/${owner.member_id}`), { body: { role: "viewer" } });
      expect(demote.status).toBe(400);
      expect(demote.json.error.param).toBe("role");
      const remove = await x.call("DELETE", x.w(`/members/${owner.member_id}`));
      expect(remove.status).toBe(400);
      const second = await x.call("POST", x.w("/members"), { body: { email: "co-owner@example.com", role: "owner" } });
      expect((await x.call("PATCH", x.w(`/members/${owner.member_id}`), { body: { role: "admin" } })).status).toBe(200);
      expect((await x.call("PATCH", x.w(`/members/${second.json.member_id}`), { body: { role: "member" } })).status).toBe(400);
    });

    test("invites: the token is returned once, stored only as a hash, single-use", async () => {
      const r = await x.call("POST", x.w("/invites"), { body: { email: "new@example.com", role: "viewer" } });
      expect(r.status).toBe(201);
      const token = r.json.token as string;
      expect(token).toMatch(/^inv_[A-Za-z0-9]{40}$/);
      expect(Object.keys(r.json).sort()).toEqual([
        "accepted_at",
        "created_at",
        "email",
        "expires_at",
        "invite_id",
        "role",
        "token",
        "workspace_id",
      ]);
      const days = (Date.parse(r.json.expires_at) - Date.parse(r.json.created_at)) / 86_400_000;
      expect(days).toBe(7);
      const list = await x.call("GET", x.w("/invites"));
      expect(list.text).not.toContain(token);
      const rows = await x.s.deps.db.orm.select().from(x.s.deps.db.t.invites);
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(rows.find((i) => i.id === r.json.invite_id)?.tokenHash).toBe(sha256Hex(token));
      const accepted = await x.call("POST", "/v1/invites/accept", { key: null, body: { token } });
      expect(accepted.status).toBe(200);
      expect(accepted.json.member).toMatchObject({ email: "new@example.com", role: "viewer", workspace_id: x.ws });
      expect(typeof accepted.json.invite.accepted_at).toBe("string");
      const again = await x.call("POST", "/v1/invites/accept", { key: null, body: { token } });
      expect(again.status).toBe(404);
      expect((await x.call("POST", "/v1/invites/accept", { key: null, body: { token: "inv_nope" } })).status).toBe(404);
      const types = (await x.auditRows()).map((a) => a.type);
      expect(types).toContain("invite.created");
      expect(types).toContain("invite.accepted");
      expect(JSON.stringify(await x.auditRows())).not.toContain(token);
    });

    test("an expired invite cannot be accepted; invites can be withdrawn", async () => {
      const r = await x.call("POST", x.w("/invites"), { body: { email: "late@example.com", expires_in_days: 1 } });
      const t = x.s.deps.db.t.invites;
      const { eq } = await import("drizzle-orm");
      await x.s.deps.db.orm
        .update(t)
        .set({ expiresAt: Date.now() - 1 })
        .where(eq(t.id, r.json.invite_id));
      expect((await x.call("POST", "/v1/invites/accept", { key: null, body: { token: r.json.token } })).status).toBe(404);
      const row = (await x.s.deps.db.orm.select().from(t).where(eq(t.id, r.json.invite_id)))[0];
      expect(row?.acceptedAt).toBeNull();
      expect((await x.call("POST", x.w("/invites"), { body: { email: "x@example.com", expires_in_days: 31 } })).json.error.param).toBe(
        "expires_in_days",
      );
      expect((await x.call("DELETE", x.w(`/invites/${r.json.invite_id}`))).status).toBe(204);
      expect((await x.call("DELETE", x.w(`/invites/${r.json.invite_id}`))).status).toBe(404);
      expect((await x.auditRows()).some((a) => a.type === "invite.revoked" && a.targetId === r.json.invite_id)).toBe(true);
    });

    test("audit log: shape, newest first, type and date filters, bounds", async () => {
      await x.call("PATCH", x.w(), { body: { name: "Audited" } });
      const r = await x.call("GET", x.w("/audit-logs"));
      expect(r.status).toBe(200);
      const ev = r.json.events[0];
      expect(Object.keys(ev).sort()).toEqual(["actor_api_key_id", "created_at", "data", "event_id", "target_id", "type", "workspace_id"]);
      expect(ev).toMatchObject({ type: "workspace.updated", target_id: x.ws, data: { name: "Audited" } });
      expect(typeof ev.actor_api_key_id).toBe("string");
      const times = r.json.events.map((e: { created_at: string }) => e.created_at);
      expect([...times].sort().reverse()).toEqual(times);
      const members = await x.call("GET", x.w("/audit-logs?type=member.added"));
      expect(members.json.events.length).toBeGreaterThan(0);
      expect(members.json.events.every((e: { type: string }) => e.type === "member.added")).toBe(true);
      const today = new Date().toISOString().slice(0, 10);
      expect((await x.call("GET", x.w(`/audit-logs?start_date=${today}&end_date=${today}`))).json.count).toBe(r.json.count);
      expect((await x.call("GET", x.w("/audit-logs?end_date=2000-01-01"))).json.count).toBe(0);
      const page = await x.call("GET", x.w("/audit-logs?limit=2&offset=1"));
      expect(page.json.events.map((e: { event_id: string }) => e.event_id)).toEqual(
        r.json.events.slice(1, 3).map((e: { event_id: string }) => e.event_id),
      );
      for (const [q, param] of [
        ["limit=0", "limit"],
        ["limit=101", "limit"],
        ["offset=-2", "offset"],
        ["type=nope.happened", "type"],
      ] as const) {
        const bad = await x.call("GET", x.w(`/audit-logs?${q}`));
        expect(bad.status).toBe(400);
        expect(bad.json.error.param).toBe(param);
      }
    });

    test("another workspace's members and invites are out of reach", async () => {
      const other = await x.otherWorkspace();
      const m = await x.call("POST", `/v1/workspaces/${other.ws}/members`, { key: other.key, body: { email: "them@example.com" } });
      expect(m.status).toBe(201);
      expect((await x.call("PATCH", x.w(`/members/${m.json.member_id}`), { body: { role: "viewer" } })).status).toBe(404);
      expect((await x.call("GET", `/v1/workspaces/${other.ws}/audit-logs`)).status).toBe(404);
      expect(
        (await x.call("GET", `/v1/workspaces/${other.ws}/audit-logs`, { key: other.key })).json.events.every(
          (e: { workspace_id: string }) => e.workspace_id === other.ws,
        ),
      ).toBe(true);
    });
  });
}
