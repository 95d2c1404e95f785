// Invites: a single-use token, returned once at creation and stored only as its SHA-256, that expires
// (7 days by default). Accepting it (no API key: the token is the credential) adds the member.
import { Type, type Static } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { ApiError } from "../../http/errors";
import { newId, randomBase62, sha256Hex } from "../../platform/ids";
import type { AuditWriter, Transact } from "../audit/repo";
import { mount, type Handler, type Mounting } from "../mount";
import { Email, RoleSchema } from "../members/routes";
import { renderMember, type MemberRepo, type MemberRow, type Role } from "../members/repo";
import { check, uuidParam } from "../validate";
import { InviteAccepted, InviteCreated, InviteList, renderInvite, type InviteRepo, type InviteRow } from "./repo";

const DAY_MS = 86_400_000;

export const InviteCreateBody = Type.Object(
  {
    email: Email,
    role: Type.Optional(RoleSchema),
    expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, description: "an integer from 1 to 30 (default 7)" })),
  },
  { additionalProperties: false },
);
export const InviteAcceptBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: "the invite token" }) },
  { additionalProperties: false },
);

/** What the invite routes call: invites, and members (accepting one adds the member). */
export interface InviteFeature {
  invites: InviteRepo;
  members: MemberRepo;
  tx: Transact;
  audit: AuditWriter;
  now: () => number;
}

export function inviteRoutes(app: Elysia, m: Mounting, d: InviteFeature): Elysia {
  mount(
    app,
    m,
    "invites.list",
    async (c) => {
      const rows = await d.invites.list(c.workspaceId);
      return { status: 200, body: { invites: rows.map(renderInvite), count: rows.length } };
    },
    { response: InviteList },
  );
  mount(app, m, "invites.create", createInvite(d), {
    body: InviteCreateBody,
    response: InviteCreated,
    description: "The response's `token` is shown this once; it is stored only as a hash.",
  });
  mount(app, m, "invites.delete", revokeInvite(d));
  mount(app, m, "invites.accept", acceptInvite(d), { body: InviteAcceptBody, response: InviteAccepted });
  return app;
}

function createInvite(d: InviteFeature): Handler<Static<typeof InviteCreated>> {
  return async (c) => {
    const b = check(InviteCreateBody, c.body);
    const token = `inv_${randomBase62(40)}`;
    const now = d.now();
    const row: InviteRow = {
      id: newId(),
      workspaceId: c.workspaceId,
      email: b.email.toLowerCase(),
      role: b.role ?? "member",
      tokenHash: sha256Hex(token),
      expiresAt: now + (b.expires_in_days ?? 7) * DAY_MS,
      acceptedAt: null,
      createdAt: now,
    };
    await d.tx(async (o) => {
      await d.invites.insert(o, row);
      await d.audit(o, {
        workspaceId: c.workspaceId,
        type: "invite.created",
        actorApiKeyId: c.actorId,
        targetId: row.id,
        data: { email: row.email, role: row.role },
      });
    });
    return { status: 201, body: { ...renderInvite(row), token } };
  };
}

function revokeInvite(d: InviteFeature): Handler<never> {
  return async (c) => {
    const id = uuidParam(c.params.invite_id, "invite_id");
    await d.tx(async (o) => {
      const removed = await d.invites.remove(o, c.workspaceId, id);
      if (!removed) throw new ApiError("not_found", "Invite not found.");
      await d.audit(o, {
        workspaceId: c.workspaceId,
        type: "invite.revoked",
        actorApiKeyId: c.actorId,
        targetId: id,
        data: { email: removed.email },
      });
    });
    return { status: 204 };
  };
}

/** No API key: the token is the credential. Adds the member unless the email already is one. */
function acceptInvite(d: InviteFeature): Handler<Static<typeof InviteAccepted>> {
  return async (c) => {
    const { token } = check(InviteAcceptBody, c.body);
    const now = d.now();
    const result = await d.tx(async (o) => {
      const invite = await d.invites.accept(o, sha256Hex(token), now);
      // Throwing rolls the acceptance back, so an expired invite stays unaccepted.
      if (!invite || invite.expiresAt <= now) throw new ApiError("not_found", "Invite not found, already used, or expired.");
      const ws = invite.workspaceId;
      let member = await d.members.byEmail(o, ws, invite.email);
      if (!member) {
        member = { id: newId(), workspaceId: ws, email: invite.email, role: invite.role as Role, createdAt: now } satisfies MemberRow;
        await d.members.insert(o, member);
        await d.audit(o, {
          workspaceId: ws,
          type: "member.added",
          actorApiKeyId: null,
          targetId: member.id,
          data: { email: member.email, role: member.role, via_invite: invite.id },
        });
      }
      await d.audit(o, {
        workspaceId: ws,
        type: "invite.accepted",
        actorApiKeyId: null,
        targetId: invite.id,
        data: { email: invite.email, member_id: member.id },
      });
      return { invite, member };
    });
    return { status: 200, body: { member: renderMember(result.member), invite: renderInvite(result.invite) } };
  };
}
