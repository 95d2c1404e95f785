// Members: email + role records. The last owner can be neither demoted nor removed.
import { Type, type Static } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { ApiError } from "../../http/errors";
import { newId } from "../../platform/ids";
import type { AuditWriter, Transact } from "../audit/repo";
import { isUniqueViolation } from "../db-errors";
import { mount, type Handler, type Mounting } from "../mount";
import { check, oneOf, uuidParam } from "../validate";
import { Member, MemberList, renderMember, ROLES, type MemberRepo, type MemberRow } from "./repo";

export const Email = Type.String({ pattern: "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$", maxLength: 254, description: "an email address" });
export const RoleSchema = oneOf(ROLES);

export const MemberCreateBody = Type.Object({ email: Email, role: Type.Optional(RoleSchema) }, { additionalProperties: false });
export const MemberPatchBody = Type.Object({ role: RoleSchema }, { additionalProperties: false });

const duplicate = () => new ApiError("invalid_parameter", "Invalid 'email': already a member of this workspace.", { param: "email" });

/** What the member routes call. */
export interface MemberFeature {
  members: MemberRepo;
  tx: Transact;
  audit: AuditWriter;
  now: () => number;
}

type Tx = Parameters<Parameters<Transact>[0]>[0];

const memberId = (p: Record<string, string | undefined>) => uuidParam(p.member_id, "member_id");

async function isLastOwner(d: MemberFeature, o: Tx, row: MemberRow): Promise<boolean> {
  return row.role === "owner" && (await d.members.owners(o, row.workspaceId)) <= 1;
}

export function memberRoutes(app: Elysia, m: Mounting, d: MemberFeature): Elysia {
  mount(
    app,
    m,
    "members.list",
    async (c) => {
      const rows = await d.members.list(c.workspaceId);
      return { status: 200, body: { members: rows.map(renderMember), count: rows.length } };
    },
    { response: MemberList },
  );
  mount(app, m, "members.create", createMember(d), { body: MemberCreateBody, response: Member });
  mount(app, m, "members.update", updateMember(d), { body: MemberPatchBody, response: Member });
  mount(app, m, "members.delete", deleteMember(d));
  return app;
}

function createMember(d: MemberFeature): Handler<Static<typeof Member>> {
  return async (c) => {
    const b = check(MemberCreateBody, c.body);
    const row: MemberRow = {
      id: newId(),
      workspaceId: c.workspaceId,
      email: b.email.toLowerCase(),
      role: b.role ?? "member",
      createdAt: d.now(),
    };
    try {
      await d.tx(async (o) => {
        if (await d.members.byEmail(o, c.workspaceId, row.email)) throw duplicate();
        await d.members.insert(o, row);
        await d.audit(o, {
          workspaceId: c.workspaceId,
          type: "member.added",
          actorApiKeyId: c.actorId,
          targetId: row.id,
          data: { email: row.email, role: row.role },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicate();
      throw err;
    }
    return { status: 201, body: renderMember(row) };
  };
}

function updateMember(d: MemberFeature): Handler<Static<typeof Member>> {
  return async (c) => {
    const id = memberId(c.params);
    const { role } = check(MemberPatchBody, c.body);
    const row = await d.tx(async (o) => {
      const current = await d.members.get(c.workspaceId, id);
      if (!current) throw new ApiError("not_found", "Member not found.");
      if (role !== "owner" && (await isLastOwner(d, o, current))) {
        throw new ApiError("invalid_parameter", "Invalid 'role': the workspace's last owner cannot be demoted.", { param: "role" });
      }
      const updated = await d.members.setRole(o, c.workspaceId, id, role);
      await d.audit(o, {
        workspaceId: c.workspaceId,
        type: "member.updated",
        actorApiKeyId: c.actorId,
        targetId: id,
        data: { email: current.email, role },
      });
      return updated!;
    });
    return { status: 200, body: renderMember(row) };
  };
}

function deleteMember(d: MemberFeature): Handler<never> {
  return async (c) => {
    const id = memberId(c.params);
    await d.tx(async (o) => {
      const current = await d.members.get(c.workspaceId, id);
      if (!current) throw new ApiError("not_found", "Member not found.");
      if (await isLastOwner(d, o, current)) {
        throw new ApiError("invalid_parameter", "Invalid 'member_id': the workspace's last owner cannot be removed.", {
          param: "member_id",
        });
      }
      await d.members.remove(o, c.workspaceId, id);
      await d.audit(o, {
        workspaceId: c.workspaceId,
        type: "member.removed",
        actorApiKeyId: c.actorId,
        targetId: id,
        data: { email: current.email },
      });
    });
    return { status: 204 };
  };
}
