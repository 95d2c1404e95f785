// The audit log, newest first: filters (type, date range, page size) sent as typed so the API judges
// them and its message shows beside the filter it names; Previous/Next page through the total.
import "./audit-log.css";
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, ApiFailure, ws, type Row } from "../lib/api";
import { field, formError, values } from "../lib/form";
import { useApi } from "../lib/hooks";
import type { PageProps } from "../lib/types";
import { empty, page, table, type Column } from "../lib/ui";
import { AUDIT_TYPES } from "../../../management/audit/types";
import { actor, details, target, when, type Names } from "./audit-log-cells";

const TYPES = AUDIT_TYPES;
const FILTERS = ["type", "start_date", "end_date", "limit"] as const;
type Filters = Record<(typeof FILTERS)[number], string>;
const NO_FILTERS: Filters = { type: "", start_date: "", end_date: "", limit: "50" };

function query(f: Filters, offset: number): string {
  const q = new URLSearchParams();
  for (const k of FILTERS) if (f[k] !== "") q.set(k, f[k]);
  if (offset > 0) q.set("offset", String(offset));
  return q.toString();
}

/** Like useApi, but keeps the failure itself so a filter's field can show the message its `param` names. */
function useList(path: string, tick: number) {
  const [s, set] = useState<{ data: Row | null; failure: ApiFailure | null; loading: boolean }>({
    data: null,
    failure: null,
    loading: true,
  });
  useEffect(() => {
    let live = true;
    set((p) => ({ ...p, loading: true }));
    api(path).then(
      (data) => live && set({ data, failure: null, loading: false }),
      (e: unknown) =>
        live && set({ data: null, failure: e instanceof ApiFailure ? e : new ApiFailure(String(e), 0, null, null), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
  return s;
}

function useNames(me: PageProps["me"]): Names {
  const keys = useApi(me.scopes.includes("keys:read") ? ws(me.workspace_id, "/api-keys?include_revoked=true") : null);
  const list = (keys.data?.api_keys as Row[] | undefined) ?? [];
  return new Map(list.map((k) => [String(k.api_key_id), String(k.name)]));
}

export function AuditLog({ me }: PageProps) {
  const [applied, setApplied] = useState({ filters: NO_FILTERS, offset: 0, tick: 0 });
  const qs = query(applied.filters, applied.offset);
  const list = useList(ws(me.workspace_id, `/audit-logs${qs ? `?${qs}` : ""}`), applied.tick);
  const names = useNames(me);
  const apply = (e: Event) => {
    e.preventDefault();
    const v = values(e.currentTarget as HTMLFormElement);
    const filters = { ...NO_FILTERS };
    for (const k of FILTERS) filters[k] = String(v[k] ?? "");
    // A new tick re-reads even when the filters are unchanged (Apply doubles as refresh).
    setApplied((a) => ({ filters, offset: 0, tick: a.tick + 1 }));
  };
  // The Reset button resets the form (every field back to no filter) and the list with it.
  const reset = () => setApplied((a) => ({ filters: NO_FILTERS, offset: 0, tick: a.tick + 1 }));
  const cols: Column[] = [
    ["Time", (r) => when(r.created_at)],
    ["Actor", (r) => actor(r, names)],
    ["Event", (r) => h("code", null, String(r.type ?? ""))],
    ["Target", (r) => target(r, names, me.workspace_id)],
    ["Details", details],
  ];
  const f = (name: keyof Filters, label: string, type: "select" | "date", options?: [string, string][]) =>
    field({ name, label, type, options, value: NO_FILTERS[name], failure: list.failure, id: `al-${name}` });
  const filters = h("form", { onSubmit: apply, onReset: reset, "aria-label": "Audit log filters", class: "form", noValidate: true }, [
    f("type", "Event type", "select", [["", "All events"] as [string, string]].concat(TYPES.map((t) => [t, t]))),
    f("start_date", "From (date)", "date"),
    f("end_date", "To (date, inclusive)", "date"),
    f("limit", "Per page", "select", [
      ["25", "25"],
      ["50", "50"],
      ["100", "100"],
    ]),
    h("div", { class: "actions" }, [h("button", { type: "submit" }, "Apply filters"), h("button", { type: "reset" }, "Reset")]),
  ]);
  const d = list.data;
  const events = (d?.events as Row[] | undefined) ?? [];
  const total = Number(d?.total ?? 0);
  const offset = Number(d?.offset ?? 0);
  const limit = Number(d?.limit ?? 50);
  // Buttons stay enabled while a page loads (disabling one drops keyboard focus); a click then waits its turn.
  const go = (to: number) => !list.loading && setApplied((a) => ({ ...a, offset: Math.max(0, to) }));
  const pager = h("nav", { "aria-label": "Audit log pages", class: "actions" }, [
    h("button", { type: "button", disabled: offset === 0, onClick: () => go(offset - limit) }, "Previous"),
    h("span", { "aria-live": "polite" }, events.length ? `${offset + 1}–${offset + events.length} of ${total}` : `0 of ${total}`),
    h("button", { type: "button", disabled: offset + events.length >= total, onClick: () => go(offset + limit) }, "Next"),
  ]);
  let body;
  if (list.loading && !d) body = h("p", { "aria-busy": "true", class: "loading" }, "Loading…");
  else if (list.failure) body = formError(list.failure, [...FILTERS]);
  else if (!events.length) body = total > 0 ? [empty("No events on this page."), pager] : empty("No audit events match these filters.");
  else body = [table(cols, events, undefined, "Audit events"), pager];
  return page("Audit log", [filters, h("div", { "aria-busy": list.loading ? "true" : undefined, class: "al-body" }, body)]);
}
