// Provider keys (BYOK): the workspace's own provider secrets, listed by their masked prefix only, added
// after the provider accepts them, and made default, disabled, enabled or deleted.
import "./api-keys.css";
import "./provider-keys.css";
import { h, type VNode } from "preact";
import { call, ws, type Row } from "../lib/api";
import { actionStatus, pending, useAction, type Action } from "../lib/action";
import { Confirm } from "../lib/confirm";
import { useApi } from "../lib/hooks";
import { when } from "../lib/time";
import type { Me, PageProps } from "../lib/types";
import { empty, page, readOnlyNote, status, table, text, type Column } from "../lib/ui";
import { AddProviderKey, type Provider } from "./provider-keys-form";

const yes = (v: unknown) => (v ? "yes" : "no");

function validation(r: Row): VNode<any> {
  const v = text(r.validation_status);
  return h("span", { class: `pk-validation pk-${v === "valid" ? "good" : "bad"}` }, v);
}

function tier(r: Row): string {
  if (!r.account_tier) return "—";
  const source = { user_specified: "chosen", auto_detected: "detected", fallback: "provider default" }[String(r.account_tier_source)];
  return source ? `${text(r.account_tier)} (${source})` : text(r.account_tier);
}

function actions(me: Me, r: Row, a: Action, reload: () => void): VNode<any> {
  const name = `“${text(r.name)}”`;
  const path = ws(me.workspace_id, `/byok-keys/${encodeURIComponent(String(r.id))}`);
  const patch = (body: Row, done: string, failed: string) => a.run(done, failed, () => call("PATCH", path, body), reload);
  return h("div", { class: "actions" }, [
    r.is_default
      ? null
      : h(
          "button",
          {
            type: "button",
            disabled: a.busy,
            "aria-label": `Make ${text(r.name)} the default`,
            onClick: () =>
              patch({ is_default: true }, `${name} is now the default ${text(r.provider)} key`, `Could not make ${name} the default`),
          },
          "Make default",
        ),
    h(
      "button",
      {
        type: "button",
        disabled: a.busy,
        "aria-label": `${r.disabled ? "Enable" : "Disable"} ${text(r.name)}`,
        onClick: () =>
          r.disabled
            ? patch({ disabled: false }, `Enabled ${name}`, `Could not enable ${name}`)
            : patch({ disabled: true }, `Disabled ${name}: requests no longer use it`, `Could not disable ${name}`),
      },
      r.disabled ? "Enable" : "Disable",
    ),
    h(Confirm, {
      label: "Delete",
      question: `Delete ${name}? Its secret is erased; this cannot be undone.`,
      yes: "Yes, delete",
      busy: a.busy,
      onYes: () => a.run(`Deleted ${name}`, `Could not delete ${name}`, () => call("DELETE", path), reload),
    }),
  ]);
}

function savedNote(saved: Row, providers: Provider[]): string {
  const who = providers.find((p) => p.id === saved.provider)?.display_name ?? text(saved.provider);
  const t = saved.account_tier ? `, tier ${tier(saved)}` : "";
  return `${who} accepted the key: saved “${text(saved.name)}” (${text(saved.key_prefix)}), validation ${text(saved.validation_status)}${t}.${pending(saved)}`;
}

export function ProviderKeys({ me }: PageProps) {
  const a = useAction();
  const list = useApi(ws(me.workspace_id, "/byok-keys"));
  const catalog = useApi("/v1/byok/providers");
  const canWrite = me.scopes.includes("byok:write");
  const providers = (catalog.data?.providers as Provider[] | undefined) ?? [];
  const display = (id: unknown) => providers.find((p) => p.id === id)?.display_name ?? text(id);
  const rows = (list.data?.byok_keys as Row[] | undefined) ?? [];
  const cols: Column[] = [
    ["Provider", (r) => display(r.provider)],
    ["Name", (r) => h("span", { class: "ak-name" }, text(r.name))],
    ["Prefix", (r) => h("code", null, text(r.key_prefix))],
    ["Default", (r) => yes(r.is_default)],
    ["Disabled", (r) => yes(r.disabled)],
    ["Validation", validation],
    ["Tier", tier],
    ["Last validated", (r) => when(r.last_validated_at)],
  ];
  if (canWrite) cols.push(["Actions", (r) => actions(me, r, a, list.reload)]);
  let add: VNode<any> | null = null;
  if (canWrite) {
    add = catalog.data
      ? providers.length
        ? h(AddProviderKey, {
            me,
            providers,
            onSaved: (saved) => {
              a.tell(savedNote(saved, providers));
              list.reload();
            },
          })
        : empty("No provider on this gateway accepts your own keys.")
      : status(catalog);
  }
  return page("Provider keys", [
    h(
      "p",
      { class: "hint" },
      "Your own provider secrets (bring your own key): requests to a provider use its enabled default key here before the gateway's own key.",
    ),
    canWrite ? null : readOnlyNote("byok:write", "add, change or delete provider keys"),
    add,
    h("h3", null, "Keys"),
    actionStatus(a),
    status(list),
    list.data ? (rows.length ? table(cols, rows, undefined, "Provider keys") : empty("No provider keys yet.")) : null,
  ]);
}
