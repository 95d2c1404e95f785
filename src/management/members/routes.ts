// Members: email + role records. The last owner can be neither demoted nor removed.
import { Type, type Static } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { ApiError } from "../../http/errors";
import { newId } from "../../platform/ids";
import { recordAudit } from "../audit/repo";
import { isUniqueViolation } from "../db-errors";
import { mount, type Handler } from "../mount";
import type { Management } from "../module";
import { check, oneOf, uuidParam } from "../validate";
import { Member, MemberList, renderMember, ROLES, type MemberRow } from "./repo";

export const Email = Type.String({ pattern: "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$", maxLength: 254, description: "an email address" });
export const RoleSchema = oneOf(ROLES);

export const MemberCreateBody = Type.Object({ email: Email, role: Type.Optional(RoleSchema) }, { additionalProperties: false });
export const MemberPatchBody = Type.Object({ role: RoleSchema }, { additionalProperties: false });

const duplicate = () => new ApiError("invalid_parameter", "Invalid 'email': already a member of this workspace.", { param: "email" });

type Tx = Parameters<Parameters<Management["db"]["tx"]>[0]>[0];

const memberId = (p: Record<string, string | undefined>) => uuidParam(p.member_id, "member_id");

async function isLastOwner(m: Management, o: Tx, row: MemberRow): Promise<boolean> {
  return row.role === "owner" && (await m.repos.members.owners(o, row.workspaceId)) <= 1;
}

export function memberRoutes(app: Elysia, m: Management): Elysia {
  mount(
    app,
    m,
    "members.list",
    async (c) => {
      const rows = await m.repos.members.list(c.workspaceId);
      return { status: 200, body: { members: rows.map(renderMember), count: rows.length } };
    },
    { response: MemberList },
  );
  mount(app, m, "members.create", createMember(m), { body: MemberCreateBody, response: Member });
  mount(app, m, "members.update", updateMember(m), { body: MemberPatchBody, response: Member });
  mount(app, m, "members.delete", deleteMember(m));
  return app;
}

function createMember(m: Management): Handler<Static<typeof Member>> {
  return async (c) => {
    const b = check(MemberCreateBody, c.body);
    const row: MemberRow = {
      id: newId(),
      workspaceId: c.workspaceId,
      email: b.email.toLowerCase(),
      role: b.role ?? "member",
      createdAt: Date.now(),
    };
    try {
      await m.db.tx(async (o) => {
        if (await m.repos.members.byEmail(o, c.workspaceId, row.email)) throw duplicate();
        await m.repos.members.insert(o, row);
        await recordAudit(o, m.db, {
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

function updateMember(m: Management): Handler<Static<typeof Member>> {
  return async (c) => {
    const id = memberId(c.params);
    const { role } = check(MemberPatchBody, c.body);
    const row = await m.db.tx(async (o) => {
      const current = await m.repos.members.get(c.workspaceId, id);
      if (!current) throw new ApiError("not_found", "Member not found.");
      if (role !== "owner" && (await isLastOwner(m, o, current))) {
        throw new ApiError("invalid_parameter", "Invalid 'role': the workspace's last owner cannot be demoted.", { param: "role" });
      }
      const updated = await m.repos.members.setRole(o, c.workspaceId, id, role);
      await recordAudit(o, m.db, {
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

function deleteMember(m: Management): Handler<never> {
  return async (c) => {
    const id = memberId(c.params);
    await m.db.tx(async (o) => {
      const current = await m.repos.members.get(c.workspaceId, id);
      if (!current) throw new ApiError("not_found", "Member not found.");
      if (await isLastOwner(m, o, current)) {
        throw new ApiError("invalid_parameter", "Invalid 'member_id': the workspace's last owner cannot be removed.", {
          param: "member_id",
        });
      }
      await m.repos.members.remove(o, c.workspaceId, id);
      await recordAudit(o, m.db, {
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
