// The workspace's routing defaults: a form sending only the fields changed (PATCH), a two-step "Clear all"
// (DELETE), the API's message beside the field its `param` names, and a read-only view without routing:write.
import { h, type VNode } from "preact";
import { useState } from "preact/hooks";
import { call, ws, type Row } from "../lib/api";
import { Confirm } from "../lib/confirm";
import { field, formError, useSubmit } from "../lib/form";
import { useApi } from "../lib/hooks";
import type { Me } from "../lib/types";
import { fields, status } from "../lib/ui";
import { ALL_FIELDS, changes, GROUPS, shown, toDraft, type Draft } from "./routing-fields";

const NAMES = ALL_FIELDS.map((f) => f.name);

/** A 202 reply (shared mode) says the write is applied here and still on its way to the other instances. */
function outcome(reply: Row, what: string): string {
  return reply.propagation_status === "pending"
    ? `${what} Propagation pending: this instance applies it now, the other gateway instances within a few seconds.`
    : `${what} Applied.`;
}

function changedAt(data: Row): string {
  return typeof data.updated_at === "string"
    ? `Last changed ${data.updated_at.replace("T", " ").replace(/\.\d+Z$/, " UTC")}.`
    : "Never changed: every field shows its built-in default.";
}

/** The controls' current values, read from the form itself so a submit never sees a stale render. */
function fromForm(form: HTMLFormElement): Draft {
  const d: Draft = {};
  for (const f of ALL_FIELDS) {
    const el = form.elements.namedItem(f.name) as HTMLInputElement | HTMLSelectElement | null;
    if (el) d[f.name] = el instanceof HTMLInputElement && el.type === "checkbox" ? el.checked : el.value;
  }
  return d;
}

function DefaultsForm({ path, data }: { path: string; data: Row }) {
  const [base, setBase] = useState<Row>(data);
  const [draft, setDraft] = useState<Draft>(() => toDraft(data));
  const [notice, setNotice] = useState<string | null>(null);
  const adopt = (reply: Row, what: string) => {
    setBase(reply);
    setDraft(toDraft(reply));
    setNotice(outcome(reply, what));
  };
  const save = useSubmit(
    async (form) => {
      setNotice(null);
      const patch = changes(fromForm(form), base);
      const names = Object.keys(patch);
      return names.length ? { names, reply: await call("PATCH", path, patch) } : null;
    },
    (r) => (r ? adopt(r.reply, `Saved ${r.names.join(", ")}.`) : setNotice("Nothing to save: no field differs from the saved values.")),
  );
  // Controls show the draft, so a re-render (an error arriving) keeps what was typed.
  const onInput = (e: Event) => {
    const el = e.target as HTMLInputElement | HTMLSelectElement;
    if (!el.name) return;
    setDraft((d) => ({ ...d, [el.name]: el instanceof HTMLInputElement && el.type === "checkbox" ? el.checked : el.value }));
  };
  const control = (f: (typeof ALL_FIELDS)[number]) =>
    field({
      label: f.label,
      name: f.name,
      id: `rd-${f.name}`,
      failure: save.failure,
      type: f.kind === "list" ? "text" : f.kind,
      options: f.options,
      value: typeof draft[f.name] === "string" ? (draft[f.name] as string) : undefined,
      checked: draft[f.name] === true,
      hint: f.hint,
      step: f.step,
    });
  // Clearing undoes every field at once: the question opens with the focus on Cancel.
  const clearControls = h(Confirm, {
    label: "Clear all…",
    question: "Reset every field to its built-in default?",
    groupLabel: "Confirm clearing",
    yes: "Clear all defaults",
    working: "Clearing…",
    focusCancel: true,
    onYes: () => call("DELETE", path),
    done: (reply) => {
      save.clear();
      adopt(reply as Row, "Cleared: every field is back to its built-in default.");
    },
  });
  return h(
    "form",
    { onSubmit: save.onSubmit, onInput, onChange: onInput, "aria-label": "Routing defaults", class: "rd-form", noValidate: true },
    [
      h("p", { class: "hint" }, changedAt(base)),
      GROUPS.map((g) => h("fieldset", null, [h("legend", null, g.legend), g.fields.map(control)])),
      formError(save.failure, NAMES),
      h("div", { class: "actions" }, [
        h("button", { type: "submit", disabled: save.busy }, save.busy ? "Saving…" : "Save changes"),
        clearControls,
      ]),
      h("p", { role: "status", class: "rd-notice" }, notice ?? ""),
    ],
  );
}

function readOnly(data: Row): VNode<any> {
  return h("div", { class: "rd-readonly" }, [
    h("p", { class: "note" }, "Read-only: changing routing defaults needs the routing:write scope."),
    h("p", { class: "hint" }, changedAt(data)),
    GROUPS.map((g) => h("div", { class: "rd-group" }, [h("h4", null, g.legend), fields(g.fields.map((f) => [f.label, shown(f, data)]))])),
  ]);
}

export function RoutingDefaults({ me }: { me: Me }) {
  const path = ws(me.workspace_id, "/routing-defaults");
  const loaded = useApi(path);
  return h("section", { "aria-labelledby": "rd-title", class: "rd" }, [
    h("h3", { id: "rd-title" }, "Routing defaults"),
    h(
      "p",
      { class: "hint" },
      "Every request of this workspace routes with these unless it sets its own gateway.routing; a field never set shows its built-in default.",
    ),
    status(loaded) ?? (me.scopes.includes("routing:write") ? h(DefaultsForm, { path, data: loaded.data! }) : readOnly(loaded.data!)),
  ]);
}
