// Requests: the request log with the list API's filters (kept in the address, `#/requests/?…`), paged,
// a box that opens a request by its X-Request-ID, and one request's detail (`#/requests/<id>`).
import "./requests.css";
import { h } from "preact";
import type { Row } from "../lib/api";
import { owns } from "../lib/form";
import { go } from "../lib/route";
import type { Me, PageProps } from "../lib/types";
import { dollars, empty, page, status, table, text } from "../lib/ui";
import { RequestDetail } from "./requests-detail";
import { FilterForm, OpenById } from "./requests-filters";
import { FILTERS, isFilterAddress, listPath, PAGE_SIZE, parseQuery, queryAddress, useLoad, type ListQuery } from "./requests-query";

/** The list's address when a request was opened from it: "Back" returns to the same filters and page. */
let lastList: string | undefined;

function pager(q: ListQuery, shown: number, total: number) {
  const to = (offset: number) => () => go("requests", queryAddress({ ...q, offset }));
  // Previous from past the end lands on the last page, not on another empty one.
  const lastStart = total > 0 ? Math.floor((total - 1) / PAGE_SIZE) * PAGE_SIZE : 0;
  return h("nav", { "aria-label": "Pages of requests", class: "actions requests-pager" }, [
    h(
      "button",
      { type: "button", disabled: q.offset === 0, onClick: to(Math.max(0, Math.min(q.offset - PAGE_SIZE, lastStart))) },
      "Previous",
    ),
    h("span", { "aria-live": "polite" }, shown === 0 ? `0 of ${total}` : `${q.offset + 1}–${q.offset + shown} of ${total}`),
    h("button", { type: "button", disabled: q.offset + PAGE_SIZE >= total, onClick: to(q.offset + PAGE_SIZE) }, "Next"),
  ]);
}

function results(q: ListQuery, data: Row) {
  const rows = data.requests as Row[];
  const total = Number(data.total);
  const filtered = Object.keys(q.filters).length > 0;
  if (rows.length === 0 && q.offset === 0) return empty(filtered ? "No requests match these filters." : "No requests recorded yet.");
  // An address past the last page (the log shrank, or a hand-edited offset) keeps the pager to go back.
  if (rows.length === 0) return [empty("No requests on this page."), pager(q, 0, total)];
  return [
    table(
      [
        ["Request ID", (r) => text(r.request_id)],
        ["Created", (r) => text(r.created_at)],
        ["Model", (r) => text(r.model)],
        ["Provider", (r) => text(r.provider)],
        ["Status", (r) => text(r.status_code)],
        ["Success", (r) => (r.success ? "yes" : "no")],
        ["Latency ms", (r) => text(r.latency_ms)],
        ["Tokens", (r) => text(Number(r.input_tokens ?? 0) + Number(r.output_tokens ?? 0))],
        ["Cost", (r) => dollars(r.cost_microdollars)],
        ["Trace ID", (r) => text(r.trace_id)],
        ["Tags", (r) => (r.tags as string[] | null)?.join(", ") ?? ""],
      ],
      rows,
      (r) => {
        lastList = queryAddress(q);
        go("requests", String(r.request_id));
      },
      "Requests",
    ),
    pager(q, rows.length, total),
  ];
}

function RequestList({ me, rest }: { me: Me; rest: string | null }) {
  const q = parseQuery(rest);
  const s = useLoad(listPath(me.workspace_id, q));
  // The form shows the failure: beside the filter its param names, else above its buttons.
  const byField = s.failure !== null && FILTERS.some((n) => owns(s.failure!.param, n));
  return page("Requests", [
    h(OpenById, null),
    h(FilterForm, { query: q, failure: s.failure }),
    s.data
      ? results(q, s.data)
      : s.failure
        ? empty(byField ? "Fix the filter marked above." : "The list could not be loaded: see the message above.")
        : status({ data: null, error: null }),
  ]);
}

export function Requests({ me, rest }: PageProps) {
  if (!isFilterAddress(rest)) return h(RequestDetail, { me, id: rest!, back: lastList });
  return h(RequestList, { me, rest });
}
