// The request log's filters as they live in the address (`#/requests/?model=…&offset=20`, so a filtered
// view can be linked), the list API's query built from them, and a load that keeps the API's failure (its
// `param` names the filter a message belongs beside).
import { useEffect, useState } from "preact/hooks";
import { api, ApiFailure, ws, type Row } from "../lib/api";

/** The list API's filters (src/management/requests/routes.ts RequestListQuery), by their query names. */
export const FILTERS = [
  "start_date",
  "end_date",
  "model",
  "provider",
  "trace_id",
  "success",
  "api_key_source",
  "is_final_attempt",
] as const;
export type FilterName = (typeof FILTERS)[number];

export interface ListQuery {
  filters: Partial<Record<FilterName, string>>;
  offset: number;
}

export const PAGE_SIZE = 20;

/** An X-Request-ID the gateway keeps as sent (src/platform/ids.ts); none holds "?", which marks filters. */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The address's rest after `#/requests/` is a filter query when it starts with "?", else a request ID. */
export const isFilterAddress = (rest: string | null): boolean => rest === null || rest.startsWith("?");

export function parseQuery(rest: string | null): ListQuery {
  const p = new URLSearchParams(rest && rest.startsWith("?") ? rest.slice(1) : "");
  const filters: ListQuery["filters"] = {};
  for (const name of FILTERS) {
    const v = p.get(name);
    if (v) filters[name] = v;
  }
  // An offset the address mangled is left for the API to refuse, beside nothing: it is not a field.
  const offset = Number(p.get("offset") ?? 0);
  return { filters, offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0 };
}

/** The address rest for a query ("?…"), or undefined for the unfiltered first page. */
export function queryAddress(q: ListQuery): string | undefined {
  const p = new URLSearchParams();
  for (const name of FILTERS) if (q.filters[name]) p.set(name, q.filters[name]!);
  if (q.offset > 0) p.set("offset", String(q.offset));
  const s = p.toString();
  return s ? `?${s}` : undefined;
}

export function listPath(workspaceId: string, q: ListQuery): string {
  const p = new URLSearchParams();
  for (const name of FILTERS) if (q.filters[name]) p.set(name, q.filters[name]!);
  p.set("limit", String(PAGE_SIZE));
  p.set("offset", String(q.offset));
  return ws(workspaceId, `/requests?${p}`);
}

export interface Load {
  data: Row | null;
  failure: ApiFailure | null;
}

/** GET `path` (null: nothing), keeping the ApiFailure; an answer for an earlier path is never shown. */
export function useLoad(path: string | null): Load {
  const [state, set] = useState<Load & { path: string | null }>({ path: null, data: null, failure: null });
  useEffect(() => {
    if (path === null) return;
    let live = true;
    api(path).then(
      (data) => live && set({ path, data, failure: null }),
      (e: unknown) =>
        live &&
        set({ path, data: null, failure: e instanceof ApiFailure ? e : new ApiFailure(String((e as Error)?.message ?? e), 0, null, null) }),
    );
    return () => {
      live = false;
    };
  }, [path]);
  return state.path === path ? state : { data: null, failure: null };
}
