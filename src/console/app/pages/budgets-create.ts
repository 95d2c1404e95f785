// The create-a-budget form: scope and its target (an API key or a BYOK provider), period, limit in USD,
// enforce and include_byok. Each attempt carries an Idempotency-Key; only a retry of the same body after
// no answer at all (the network failed) reuses it, so a retry never creates a second budget.
import { h } from "preact";
import { useRef } from "preact/hooks";
import { ApiFailure, call, ws, type Row } from "../lib/api";
import { useDraft } from "../lib/draft";
import { field, form, formError, useSubmit, values } from "../lib/form";
import { text } from "../lib/ui";
import { limitValue, newIdempotencyKey } from "./budgets-money";

export const PERIODS: [string, string][] = [
  ["daily", "Daily (UTC day)"],
  ["weekly", "Weekly (from Monday, UTC)"],
  ["monthly", "Monthly (UTC month)"],
];
const SCOPES: [string, string][] = [
  ["workspace", "Workspace"],
  ["api_key", "API key"],
  ["byok", "BYOK provider"],
];
const NAMES = ["scope", "scope_id", "period", "limit", "enforce", "include_byok"];

export interface Targets {
  /** The workspace's API keys, revoked ones included, or null when the signed-in key may not list them (no keys:read). */
  keys: Row[] | null;
  /** The providers that take BYOK keys, or null while unknown. */
  providers: Row[] | null;
}

export const keyLabel = (k: Row) => `${text(k.name)} (${text(k.key_prefix)}…${k.revoked_at ? ", revoked" : ""})`;

function targetField(scope: string, value: string, t: Targets, failure: ReturnType<typeof useSubmit>["failure"]) {
  if (scope === "workspace") return null;
  // A revoked key keeps its budgets (and its name on them) but takes no new one.
  const list = scope === "api_key" ? (t.keys?.filter((k) => !k.revoked_at) ?? null) : t.providers;
  const label = scope === "api_key" ? "API key" : "BYOK provider";
  if (list === null || list.length === 0) {
    const hint = scope === "api_key" ? "The API key's ID (this key cannot list keys: it lacks keys:read)." : "The provider's ID.";
    return field({ label: `${label} ID`, name: "scope_id", value, failure, hint: list === null ? hint : "None listed: enter an ID." });
  }
  const options: [string, string][] =
    scope === "api_key"
      ? list.map((k) => [text(k.api_key_id), keyLabel(k)])
      : list.map((p) => [text(p.id), `${text(p.display_name)} (${text(p.id)})`]);
  // Until one is picked the select shows its first option, and that is what the form sends.
  return field({ label, name: "scope_id", type: "select", options, value: value || options[0]![0], failure });
}

export function CreateBudget({ workspaceId, targets, created }: { workspaceId: string; targets: Targets; created: (b: Row) => void }) {
  // The scope and its target are kept as they change: the scope decides which target field shows.
  const { draft, setDraft, reset } = useDraft(() => ({ scope: "workspace", scope_id: "" }));
  const onField = (e: Event) => {
    const t = e.target as HTMLSelectElement;
    if (t.name === "scope" && t.value !== draft.scope) setDraft({ scope: t.value, scope_id: "" });
    else if (t.name === "scope_id") setDraft((d) => ({ ...d, scope_id: t.value }));
  };
  const pending = useRef<{ body: string; key: string } | null>(null);
  const s = useSubmit(
    async (f) => {
      const v = values(f);
      const body: Row = { scope: v.scope, period: v.period, enforce: v.enforce === "on", include_byok: v.include_byok === "on" };
      if (v.scope !== "workspace") body.scope_id = v.scope_id;
      const limit = limitValue(String(v.limit ?? ""));
      if (limit !== undefined) body.limit = limit;
      const json = JSON.stringify(body);
      const key = pending.current?.body === json ? pending.current.key : newIdempotencyKey();
      pending.current = { body: json, key };
      try {
        const r = await call("POST", ws(workspaceId, "/budgets"), body, { "Idempotency-Key": key });
        pending.current = null;
        return r;
      } catch (e) {
        // An answer (even an error) is stored under the key; only a request that got none may reuse it.
        if (e instanceof ApiFailure) pending.current = null;
        throw e;
      }
    },
    (b, f) => {
      f.reset();
      reset();
      created(b);
    },
  );
  const scope = draft.scope;
  return h("div", { class: "bm-budget-create" }, [
    h("h3", null, "New budget"),
    form(
      s,
      "New budget",
      [
        field({ label: "Scope", name: "scope", type: "select", options: SCOPES, value: scope, failure: s.failure }),
        targetField(scope, draft.scope_id, targets, s.failure),
        field({ label: "Period", name: "period", type: "select", options: PERIODS, value: "monthly", failure: s.failure }),
        field({
          label: "Limit (USD)",
          name: "limit",
          value: "",
          failure: s.failure,
          placeholder: "100.00",
          hint: "Dollars, up to 6 decimal places.",
        }),
        field({
          label: "Enforce (refuse calls once spent)",
          name: "enforce",
          type: "checkbox",
          checked: true,
          failure: s.failure,
        }),
        field({ label: "Include BYOK spend", name: "include_byok", type: "checkbox", checked: false, failure: s.failure }),
        formError(s.failure, NAMES),
      ],
      "Create budget",
      { onField },
    ),
  ]);
}
