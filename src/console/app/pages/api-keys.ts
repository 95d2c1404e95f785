// API keys: the workspace's keys (revoked ones on request), creating one (its full key shown this once,
// held only in this page's state, so dismissing or reloading forgets it), editing and revoking.
import "./api-keys.css";
import { h, type VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import { call, KEY, ws, type Row } from "../lib/api";
import { actionStatus, pending, useAction, type Action } from "../lib/action";
import { Confirm } from "../lib/confirm";
import { useApi } from "../lib/hooks";
import { when } from "../lib/time";
import type { Me, PageProps } from "../lib/types";
import { empty, page, readOnlyNote, status, table, text, type Column } from "../lib/ui";
import { CreateKeyForm, EditKeyForm } from "./api-keys-form";

function NewKey({ created, onDismiss }: { created: Row; onDismiss: () => void }): VNode<any> {
  const [copied, setCopied] = useState<string | null>(null);
  const key = String(created.key);
  useEffect(() => document.getElementById("ak-new-key-title")?.focus(), []);
  const copy = () => {
    const clip = navigator.clipboard as Clipboard | undefined;
    // The clipboard API exists only on a secure origin (https or localhost); elsewhere the key is copied by hand.
    (clip ? clip.writeText(key) : Promise.reject(new Error("no clipboard"))).then(
      () => setCopied("Copied"),
      () => setCopied("Copying failed: select the key and copy it by hand."),
    );
  };
  return h("section", { class: "ak-panel ak-new-key", "aria-labelledby": "ak-new-key-title" }, [
    h("h3", { id: "ak-new-key-title", tabIndex: -1 }, ["New key ", h("span", { class: "ak-name" }, text(created.name))]),
    h("p", { class: "ak-warning" }, "Copy this key now: it will not be shown again."),
    h("code", { class: "ak-secret", "data-new-key": "" }, key),
    h("div", { class: "ak-buttons" }, [
      h("button", { type: "button", onClick: copy }, copied === "Copied" ? "Copied" : "Copy"),
      h("button", { type: "button", onClick: onDismiss }, "I have copied it: hide the key"),
    ]),
    h("p", { role: "status", class: "notice" }, copied ?? ""),
    pending(created) ? h("p", { class: "note" }, pending(created).trim()) : null,
  ]);
}

function expiry(r: Row): VNode<any> {
  const at = typeof r.expires_at === "string" ? Date.parse(r.expires_at) : NaN;
  return h("span", null, [when(r.expires_at), at <= Date.now() ? h("strong", { class: "ak-expired" }, " expired") : null]);
}

function actions(me: Me, r: Row, a: Action, edit: (id: string) => void, reload: () => void): VNode<any> | string {
  if (r.revoked_at) return "";
  const id = String(r.api_key_id);
  const self = id === me.api_key_id;
  const revoke = () =>
    a.run(
      `Revoked “${text(r.name)}”`,
      `Could not revoke “${text(r.name)}”`,
      () => call("DELETE", ws(me.workspace_id, `/api-keys/${encodeURIComponent(id)}`)),
      () => {
        if (!self) return reload();
        // The console's own key no longer works: back to the sign-in form.
        sessionStorage.removeItem(KEY);
        location.reload();
      },
    );
  return h("div", { class: "actions" }, [
    h("button", { type: "button", onClick: () => edit(id), "aria-label": `Edit ${text(r.name)}` }, "Edit"),
    h(Confirm, {
      label: "Revoke",
      question: self
        ? "Revoke the key you are signed in with? The console signs out."
        : `Revoke “${text(r.name)}”? Requests with it fail at once.`,
      yes: "Yes, revoke",
      busy: a.busy,
      onYes: revoke,
    }),
  ]);
}

export function ApiKeys({ me }: PageProps) {
  const [withRevoked, setWithRevoked] = useState(false);
  const [created, setCreated] = useState<Row | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const a = useAction();
  const list = useApi(ws(me.workspace_id, `/api-keys${withRevoked ? "?include_revoked=true" : ""}`));
  const canWrite = me.scopes.includes("keys:write");
  const rows = (list.data?.api_keys as Row[] | undefined) ?? [];
  const target = editing ? rows.find((r) => r.api_key_id === editing) : undefined;
  const dismiss = () => {
    setCreated(null);
    document.getElementById("ak-list-title")?.focus();
  };
  const cols: Column[] = [
    ["Name", (r) => h("span", { class: "ak-name" }, text(r.name))],
    ["Prefix", (r) => h("code", null, text(r.key_prefix))],
    ["Scopes", (r) => ((r.scopes as string[]).length ? (r.scopes as string[]).join(", ") : "none")],
    ["Created", (r) => when(r.created_at)],
    ["Expires", expiry],
    ["Last used", (r) => when(r.last_used_at)],
    ["Revoked", (r) => when(r.revoked_at, "no")],
  ];
  if (canWrite) cols.push(["Actions", (r) => actions(me, r, a, setEditing, list.reload)]);
  return page("API keys", [
    canWrite ? null : readOnlyNote("keys:write", "create, edit or revoke keys"),
    created ? h(NewKey, { created, onDismiss: dismiss }) : null,
    canWrite && !target
      ? h(CreateKeyForm, {
          me,
          onCreated: (c) => {
            a.tell("");
            setCreated(c);
            list.reload();
          },
        })
      : null,
    target
      ? h(EditKeyForm, {
          key: editing,
          me,
          row: target,
          onCancel: () => setEditing(null),
          onSaved: (saved) => {
            setEditing(null);
            a.tell(saved ? `Saved “${text(saved.name)}”.${pending(saved)}` : "Nothing changed.");
            list.reload();
          },
        })
      : null,
    h("div", { class: "ak-list-head" }, [
      h("h3", { id: "ak-list-title", tabIndex: -1 }, "Keys"),
      h("div", { class: "field check" }, [
        h("label", { for: "ak-with-revoked" }, "Include revoked keys"),
        h("input", {
          id: "ak-with-revoked",
          type: "checkbox",
          checked: withRevoked,
          onChange: (e: Event) => setWithRevoked((e.currentTarget as HTMLInputElement).checked),
        }),
      ]),
    ]),
    actionStatus(a),
    status(list),
    list.data ? (rows.length ? table(cols, rows, undefined, "API keys") : empty("No API keys.")) : null,
  ]);
}
