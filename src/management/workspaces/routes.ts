// Workspaces: an API key reaches only its own workspace, so the list holds exactly that one.
import { Type } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { ApiError } from "../../http/errors";
import type { AuditWriter, Transact } from "../audit/repo";
import { mount, type Mounting } from "../mount";
import { check } from "../validate";
import { renderWorkspace, Workspace, WorkspaceList, type WorkspaceRepo } from "./repo";

export const WorkspacePatch = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, description: "a string of 1 to 100 characters" }) },
  { additionalProperties: false },
);

/** What the workspace routes call. */
export interface WorkspaceFeature {
  workspaces: WorkspaceRepo;
  tx: Transact;
  audit: AuditWriter;
}

export function workspaceRoutes(app: Elysia, m: Mounting, d: WorkspaceFeature): Elysia {
  const load = async (id: string) => {
    const ws = await d.workspaces.get(id);
    if (!ws) throw new ApiError("not_found", "Workspace not found.");
    return ws;
  };
  mount(
    app,
    m,
    "workspaces.list",
    async (c) => {
      const ws = await load(c.workspaceId);
      return { status: 200, body: { workspaces: [renderWorkspace(ws)], count: 1 } };
    },
    { response: WorkspaceList },
  );
  mount(app, m, "workspaces.get", async (c) => ({ status: 200, body: renderWorkspace(await load(c.workspaceId)) }), {
    response: Workspace,
  });
  mount(
    app,
    m,
    "workspaces.update",
    async (c) => {
      const { name } = check(WorkspacePatch, c.body);
      await load(c.workspaceId);
      const row = await d.tx(async (o) => {
        const updated = await d.workspaces.rename(c.workspaceId, name, o);
        await d.audit(o, {
          workspaceId: c.workspaceId,
          type: "workspace.updated",
          actorApiKeyId: c.actorId,
          targetId: c.workspaceId,
          data: { name },
        });
        return updated!;
      });
      return { status: 200, body: renderWorkspace(row) };
    },
    { body: WorkspacePatch, response: Workspace },
  );
  return app;
}
