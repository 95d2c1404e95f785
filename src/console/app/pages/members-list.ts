// The workspace's members: the table (with a role form and a confirmed remove per row when the key may
// write) and the add-a-member form.
import { h } from "preact";
import { call, ws, type Row } from "../lib/api";
import { asks, Confirm } from "../lib/confirm";
import { useDraft } from "../lib/draft";
import { field, form, formError, useSubmit, values } from "../lib/form";
import { utc } from "../lib/time";
import { empty, table, text } from "../lib/ui";

export const ROLES: [string, string][] = [
  ["owner", "Owner"],
  ["admin", "Admin"],
  ["member", "Member"],
  ["viewer", "Viewer"],
];

export interface SectionProps {
  workspaceId: string;
  canWrite: boolean;
  /** Tells the page what happened (a sentence for its status line) so it can reload. */
  changed: (said: string) => void;
}

function RoleForm({ member, workspaceId, changed }: { member: Row } & Omit<SectionProps, "canWrite">) {
  const id = text(member.member_id);
  const email = text(member.email);
  const { draft, onField } = useDraft(() => ({ role: text(member.role) }));
  const s = useSubmit(
    async (f) => call("PATCH", ws(workspaceId, `/members/${encodeURIComponent(id)}`), { role: values(f).role }),
    (r) => changed(`${text(r.email)} is now ${text(r.role)}.`),
  );
  const attrs = { class: "bm-inline-form", "aria-label": `Role of ${email}`, onSubmit: s.onSubmit, onChange: onField, noValidate: true };
  return h("form", attrs, [
    field({
      label: `Role of ${email}`,
      name: "role",
      id: `role-${id}`,
      type: "select",
      options: ROLES,
      value: draft.role,
      failure: s.failure,
    }),
    h("button", { type: "submit", disabled: s.busy || draft.role === member.role, "aria-label": `Save role of ${email}` }, "Save"),
    formError(s.failure, ["role"]),
  ]);
}

function AddMember({ workspaceId, changed }: Omit<SectionProps, "canWrite">) {
  const s = useSubmit(
    async (f) => {
      const v = values(f);
      return call("POST", ws(workspaceId, "/members"), { email: v.email, role: v.role });
    },
    (r, f) => {
      f.reset();
      changed(`${text(r.email)} added as ${text(r.role)}.`);
    },
  );
  return form(
    s,
    "Add member",
    [
      field({ label: "Email", name: "email", type: "email", value: "", failure: s.failure }),
      field({ label: "Role", name: "role", type: "select", options: ROLES, value: "member", failure: s.failure }),
      formError(s.failure, ["email", "role"]),
    ],
    "Add member",
  );
}

export function MemberList({ members, ...p }: SectionProps & { members: Row[] }) {
  const role = (m: Row) =>
    p.canWrite ? h(RoleForm, { key: text(m.member_id), member: m, workspaceId: p.workspaceId, changed: p.changed }) : text(m.role);
  const remove = (m: Row) =>
    h(Confirm, {
      key: text(m.member_id),
      ...asks("Remove", `member ${text(m.email)}`),
      onYes: () => call("DELETE", ws(p.workspaceId, `/members/${encodeURIComponent(text(m.member_id))}`)),
      done: () => p.changed(`${text(m.email)} removed.`),
    });
  return h("section", { class: "bm-members-section", "aria-labelledby": "members-title" }, [
    h("h3", { id: "members-title" }, "Members"),
    members.length === 0
      ? empty("No members yet.")
      : table(
          [
            ["Email", (m) => text(m.email)],
            ["Role", role],
            ["Added", (m) => utc(m.created_at)],
            ...(p.canWrite ? ([["Actions", remove]] as [string, (m: Row) => ReturnType<typeof remove>][]) : []),
          ],
          members,
          undefined,
          "Members",
        ),
    p.canWrite ? h(AddMember, { workspaceId: p.workspaceId, changed: p.changed }) : null,
  ]);
}
