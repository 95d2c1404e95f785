// Members: the workspace's members and invites; adding, inviting, changing a role, removing and
// withdrawing when the key holds members:write.
import "./members.css";
import { h } from "preact";
import { useState } from "preact/hooks";
import { ws, type Row } from "../lib/api";
import { useApi } from "../lib/hooks";
import type { PageProps } from "../lib/types";
import { page, status } from "../lib/ui";
import { InviteList } from "./members-invites";
import { MemberList } from "./members-list";

export function Members({ me }: PageProps) {
  const canWrite = me.scopes.includes("members:write");
  const members = useApi(ws(me.workspace_id, "/members"));
  const invites = useApi(ws(me.workspace_id, "/invites"));
  const [notice, setNotice] = useState<string | null>(null);
  const changed = (said: string) => {
    setNotice(said);
    members.reload();
    invites.reload();
  };
  const common = { workspaceId: me.workspace_id, canWrite, changed };
  return page("Members", [
    canWrite
      ? null
      : h("p", { class: "note" }, "Read-only: this API key lacks the members:write scope, so members and invites cannot be changed here."),
    h("p", { role: "status", class: "notice" }, notice ?? ""),
    status(members) ?? h(MemberList, { ...common, members: members.data!.members as Row[] }),
    status(invites) ?? h(InviteList, { ...common, invites: invites.data!.invites as Row[] }),
  ]);
}
