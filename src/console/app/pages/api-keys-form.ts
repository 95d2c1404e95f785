// The API key forms: create (name, scopes as one checkbox per scope, expiry) and edit (PATCH with only
// what changed, so editing the name of an expired key does not resend its past expiry).
import { h, type VNode } from "preact";
import { useEffect } from "preact/hooks";
import { call, ws, type Row } from "../lib/api";
import { useDraft } from "../lib/draft";
import { field, form, formError, owns, useSubmit } from "../lib/form";
import { fromLocalInput, localInput } from "../lib/time";
import type { Me } from "../lib/types";
import { SCOPES } from "../../../auth/scopes";

const FIELDS = ["name", "scopes", "expires_at"];

/** Scopes in SCOPES order, the order they are sent in, so `scopes[i]` in an error names one of them. */
const ordered = (picked: string[]) => SCOPES.filter((s) => picked.includes(s));

function scopeBoxes(prefix: string, picked: string[], held: string[], param: string | null, message: string | null, locked: boolean) {
  const errorId = `${prefix}-scopes-error`;
  const bad = param?.match(/^scopes\[(\d+)\]$/);
  const badScope = bad ? ordered(picked)[Number(bad[1])] : undefined;
  const error = message && owns(param, "scopes") ? (badScope ? `${message} (${badScope})` : message) : null;
  return h("fieldset", { class: "ak-scopes", "aria-describedby": error ? errorId : undefined, disabled: locked }, [
    h("legend", null, "Scopes"),
    locked ? h("p", { class: "hint" }, "A playground key is inference-only and holds no scopes.") : null,
    h(
      "div",
      { class: "ak-scope-grid" },
      SCOPES.map((s) => {
        const id = `${prefix}-scope-${s.replace(":", "-")}`;
        const mine = held.includes(s);
        return h("div", { class: "ak-scope" }, [
          h("input", {
            type: "checkbox",
            id,
            name: "scopes",
            value: s,
            checked: picked.includes(s),
            disabled: !mine,
            "aria-invalid": s === badScope ? "true" : undefined,
          }),
          h("label", { for: id }, [s, mine ? null : h("small", { class: "hint" }, " (your key lacks it)")]),
        ]);
      }),
    ),
    error ? h("p", { id: errorId, class: "field-error", role: "alert" }, error) : null,
  ]);
}

export function CreateKeyForm({ me, onCreated }: { me: Me; onCreated: (created: Row) => void }): VNode<any> {
  const blank = () => ({ name: "", scopes: [] as string[], expires_at: "" });
  const { draft, setDraft, onField } = useDraft(blank);
  const s = useSubmit(
    () => {
      const body: Row = { name: draft.name, scopes: ordered(draft.scopes) };
      if (draft.expires_at) body.expires_at = fromLocalInput(draft.expires_at);
      return call("POST", ws(me.workspace_id, "/api-keys"), body);
    },
    (created) => {
      setDraft(blank());
      onCreated(created);
    },
  );
  const f = s.failure;
  return h("section", { "aria-labelledby": "ak-create-title", class: "ak-panel" }, [
    h("h3", { id: "ak-create-title" }, "Create an API key"),
    form(
      s,
      "Create an API key",
      [
        field({ label: "Name", name: "name", id: "ak-new-name", failure: f, value: draft.name }),
        field({
          label: "Expires (your local time)",
          name: "expires_at",
          id: "ak-new-expires",
          type: "datetime-local",
          failure: f,
          value: draft.expires_at,
          hint: "Leave empty for a key that never expires.",
        }),
        scopeBoxes("ak-new", draft.scopes, me.scopes, f?.param ?? null, f?.message ?? null, false),
        formError(f, FIELDS),
      ],
      "Create key",
      { onField },
    ),
  ]);
}

export function EditKeyForm(p: { me: Me; row: Row; onSaved: (saved: Row | null) => void; onCancel: () => void }): VNode<any> {
  const start = {
    name: String(p.row.name ?? ""),
    scopes: ordered((p.row.scopes as string[]) ?? []),
    expires_at: localInput(p.row.expires_at),
  };
  const { draft, onField } = useDraft(() => ({ ...start }));
  // Opened from a row's button far below: the keyboard follows to the form.
  useEffect(() => document.getElementById("ak-edit-name")?.focus(), []);
  const s = useSubmit(
    async () => {
      const patch: Row = {};
      if (draft.name !== start.name) patch.name = draft.name;
      if (ordered(draft.scopes).join(" ") !== start.scopes.join(" ")) patch.scopes = ordered(draft.scopes);
      if (draft.expires_at !== start.expires_at) patch.expires_at = draft.expires_at ? fromLocalInput(draft.expires_at) : null;
      if (Object.keys(patch).length === 0) return null;
      return call("PATCH", ws(p.me.workspace_id, `/api-keys/${encodeURIComponent(String(p.row.api_key_id))}`), patch);
    },
    (saved) => p.onSaved(saved),
  );
  const f = s.failure;
  const cancel = h("button", { type: "button", onClick: p.onCancel }, "Cancel");
  return h("section", { "aria-labelledby": "ak-edit-title", class: "ak-panel" }, [
    h("h3", { id: "ak-edit-title" }, ["Edit ", h("span", { class: "ak-name" }, start.name)]),
    form(
      s,
      "Edit the API key",
      [
        field({ label: "Name", name: "name", id: "ak-edit-name", failure: f, value: draft.name }),
        field({
          label: "Expires (your local time)",
          name: "expires_at",
          id: "ak-edit-expires",
          type: "datetime-local",
          failure: f,
          value: draft.expires_at,
          hint: "Empty: the key never expires.",
        }),
        scopeBoxes("ak-edit", draft.scopes, p.me.scopes, f?.param ?? null, f?.message ?? null, p.row.playground === true),
        formError(f, FIELDS),
      ],
      "Save changes",
      { onField, buttons: cancel },
    ),
  ]);
}
