// One budget: what it covers, its period, flags and spend bar, with an edit form (limit, enforce,
// include_byok via PATCH) and an in-page confirmed delete when the key may write.
import { h } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { call, ws, type Row } from "../lib/api";
import { asks, Confirm } from "../lib/confirm";
import { field, form, formError, useSubmit, values } from "../lib/form";
import { spendBar } from "../lib/spend-bar";
import { utc } from "../lib/time";
import { fields, text } from "../lib/ui";
import { keyLabel, PERIODS, type Targets } from "./budgets-create";
import { limitValue, toMicro } from "./budgets-money";

/** What a budget covers, in words: the key's name or the provider's display name when known. */
export function scopeLabel(b: Row, t: Targets): string {
  if (b.scope === "workspace") return "Workspace";
  if (b.scope === "api_key") {
    const k = t.keys?.find((x) => x.api_key_id === b.scope_id);
    return `API key ${k ? keyLabel(k) : text(b.scope_id)}`;
  }
  if (b.scope !== "byok") return `${text(b.scope)} ${text(b.scope_id)}`;
  const p = t.providers?.find((x) => x.id === b.scope_id);
  return `BYOK provider ${p ? `${text(p.display_name)} (${text(p.id)})` : text(b.scope_id)}`;
}

const periodLabel = (p: unknown) => PERIODS.find(([v]) => v === p)?.[1] ?? text(p);
const yesNo = (v: unknown) => (v ? "Yes" : "No");

export interface CardProps {
  budget: Row;
  workspaceId: string;
  targets: Targets;
  canWrite: boolean;
  /** Tells the page what changed (the API's reply, or null for a delete answered 204). */
  changed: (verb: "updated" | "deleted", reply: Row | null) => void;
}

function EditBudget({
  budget: b,
  workspaceId,
  close,
  changed,
}: {
  budget: Row;
  workspaceId: string;
  close: () => void;
  changed: CardProps["changed"];
}) {
  const id = text(b.budget_id);
  // Opening the form puts the cursor in the limit, the field most edits change.
  useLayoutEffect(() => document.getElementById(`limit-${id}`)?.focus(), []);
  const s = useSubmit(
    async (f) => {
      const v = values(f);
      const body: Row = { enforce: v.enforce === "on", include_byok: v.include_byok === "on" };
      const limit = limitValue(String(v.limit ?? ""));
      if (limit !== undefined) body.limit = limit;
      return call("PATCH", ws(workspaceId, `/budgets/${encodeURIComponent(id)}`), body);
    },
    (r) => {
      close();
      changed("updated", r);
    },
  );
  return form(
    s,
    "Edit budget",
    [
      field({ label: "Limit (USD)", name: "limit", id: `limit-${id}`, value: text(b.limit), failure: s.failure }),
      field({ label: "Enforce", name: "enforce", id: `enforce-${id}`, type: "checkbox", checked: Boolean(b.enforce), failure: s.failure }),
      field({
        label: "Include BYOK spend",
        name: "include_byok",
        id: `include-byok-${id}`,
        type: "checkbox",
        checked: Boolean(b.include_byok),
        failure: s.failure,
      }),
      formError(s.failure, ["limit", "enforce", "include_byok"]),
    ],
    "Save changes",
    { buttons: h("button", { type: "button", onClick: close }, "Cancel") },
  );
}

export function BudgetCard(p: CardProps) {
  const b = p.budget;
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  // Closing the form (saved or cancelled) hands focus back to the Edit button it came from.
  useLayoutEffect(() => {
    if (!editing && wasEditing.current) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  const name = `${scopeLabel(b, p.targets)}, ${text(b.period)}`;
  return h("article", { class: "bm-budget", "aria-label": `Budget: ${name}` }, [
    h("h3", null, name),
    spendBar(name, toMicro(b.spend), toMicro(b.limit)),
    fields([
      ["Scope", scopeLabel(b, p.targets)],
      ["Period", `${periodLabel(b.period)}: ${utc(b.period_start)} to ${utc(b.period_end)}`],
      ["Limit", `$${text(b.limit)}`],
      ["Enforce", yesNo(b.enforce)],
      ["Include BYOK", yesNo(b.include_byok)],
    ]),
    p.canWrite
      ? editing
        ? h(EditBudget, { budget: b, workspaceId: p.workspaceId, close: () => setEditing(false), changed: p.changed })
        : h("div", { class: "actions" }, [
            h("button", { type: "button", ref: editButton, "aria-label": `Edit budget ${name}`, onClick: () => setEditing(true) }, "Edit"),
            h(Confirm, {
              ...asks("Delete", `budget ${name}`),
              onYes: () => call("DELETE", ws(p.workspaceId, `/budgets/${encodeURIComponent(text(b.budget_id))}`)),
              done: (r) => p.changed("deleted", Object.keys(r as Row).length ? (r as Row) : null),
            }),
          ])
      : null,
  ]);
}
