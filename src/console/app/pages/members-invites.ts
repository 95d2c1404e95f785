// Invites: the open and accepted invites, a confirmed withdraw, and the invite form, whose reply holds
// the invite's token this once (the gateway keeps only its hash), shown with a Copy button.
import { h } from "preact";
import { useState } from "preact/hooks";
import { call, ws, type Row } from "../lib/api";
import { asks, Confirm } from "../lib/confirm";
import { field, form, formError, useSubmit, values } from "../lib/form";
import { utc } from "../lib/time";
import { empty, table, text } from "../lib/ui";
import { ROLES, type SectionProps } from "./members-list";

function TokenOnce({ invite, dismiss }: { invite: Row; dismiss: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const token = text(invite.token);
  const failed = () => setCopied("Copying failed: select the token and copy it.");
  // The clipboard API exists only in secure contexts (https or localhost).
  const copy = () => (navigator.clipboard ? navigator.clipboard.writeText(token).then(() => setCopied("Copied."), failed) : failed());
  return h("div", { class: "bm-token-once", role: "region", "aria-label": "New invite token" }, [
    h("p", { class: "bm-warning" }, [
      h("strong", null, "Copy this token now."),
      " It is shown only once: the gateway keeps only its hash.",
    ]),
    h("p", null, `Send it to ${text(invite.email)}; they accept the invite with POST /v1/invites/accept {"token": "…"}.`),
    h("code", { class: "bm-token", "data-token": "" }, token),
    h("div", { class: "actions" }, [
      h("button", { type: "button", onClick: copy }, "Copy"),
      h("button", { type: "button", onClick: dismiss }, "Done"),
      h("span", { role: "status" }, copied ?? ""),
    ]),
  ]);
}

/** `expires_in_days` as the API takes it: an integer when one was typed, the text otherwise (the API names the problem). */
const days = (typed: string): number | string | undefined => {
  const s = typed.trim();
  return s === "" ? undefined : /^\d+$/.test(s) ? Number(s) : s;
};

function Invite({ workspaceId, created }: { workspaceId: string; created: (invite: Row) => void }) {
  const s = useSubmit(
    async (f) => {
      const v = values(f);
      const body: Row = { email: v.email, role: v.role };
      const n = days(String(v.expires_in_days ?? ""));
      if (n !== undefined) body.expires_in_days = n;
      return call("POST", ws(workspaceId, "/invites"), body);
    },
    (r, f) => {
      f.reset();
      created(r);
    },
  );
  return form(
    s,
    "Invite someone",
    [
      field({ label: "Email", name: "email", id: "invite-email", type: "email", value: "", failure: s.failure }),
      field({ label: "Role", name: "role", id: "invite-role", type: "select", options: ROLES, value: "member", failure: s.failure }),
      field({
        label: "Expires in (days)",
        name: "expires_in_days",
        id: "invite-days",
        value: "",
        failure: s.failure,
        hint: "1 to 30; 7 when empty.",
      }),
      formError(s.failure, ["email", "role", "expires_in_days"]),
    ],
    "Send invite",
  );
}

function state(i: Row): string {
  if (i.accepted_at) return `Accepted ${utc(i.accepted_at)}`;
  return Date.parse(text(i.expires_at)) <= Date.now() ? `Expired ${utc(i.expires_at)}` : `Open until ${utc(i.expires_at)}`;
}

export function InviteList({ invites, ...p }: SectionProps & { invites: Row[] }) {
  const [fresh, setFresh] = useState<Row | null>(null);
  const withdraw = (i: Row) =>
    i.accepted_at
      ? ""
      : h(Confirm, {
          key: text(i.invite_id),
          ...asks("Withdraw", `invite for ${text(i.email)}`),
          onYes: () => call("DELETE", ws(p.workspaceId, `/invites/${encodeURIComponent(text(i.invite_id))}`)),
          done: () => p.changed(`Invite for ${text(i.email)} withdrawn.`),
        });
  return h("section", { class: "bm-members-section", "aria-labelledby": "invites-title" }, [
    h("h3", { id: "invites-title" }, "Invites"),
    fresh ? h(TokenOnce, { invite: fresh, dismiss: () => setFresh(null) }) : null,
    invites.length === 0
      ? empty("No invites.")
      : table(
          [
            ["Email", (i) => text(i.email)],
            ["Role", (i) => text(i.role)],
            ["Status", state],
            ...(p.canWrite ? ([["Actions", withdraw]] as [string, (i: Row) => ReturnType<typeof withdraw>][]) : []),
          ],
          invites,
          undefined,
          "Invites",
        ),
    p.canWrite
      ? h(Invite, {
          workspaceId: p.workspaceId,
          created: (r) => {
            setFresh(r);
            p.changed(`Invite for ${text(r.email)} created.`);
          },
        })
      : null,
  ]);
}
