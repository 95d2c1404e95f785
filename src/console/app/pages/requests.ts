// Requests: the request log, paged, and one request's detail with every attempt (`#/requests/<id>`).
import { h } from "preact";
import { useState } from "preact/hooks";
import { ws, type Row } from "../lib/api";
import { useApi } from "../lib/hooks";
import { go } from "../lib/route";
import type { Me, PageProps } from "../lib/types";
import { dollars, empty, fields, page, status, table, text } from "../lib/ui";

const PAGE_SIZE = 20;

function RequestDetail({ me, id }: { me: Me; id: string }) {
  const s = useApi(ws(me.workspace_id, `/requests/${encodeURIComponent(id)}`));
  const back = h("button", { type: "button", onClick: () => go("requests") }, "← Back to requests");
  if (!s.data) return h("section", { "aria-label": "Request detail" }, [back, status(s)]);
  const r = s.data;
  return h("section", { "aria-label": "Request detail" }, [
    back,
    h("h2", null, "Request"),
    fields([
      ["Request ID", text(r.request_id)],
      ["Created", text(r.created_at)],
      ["Model", text(r.model)],
      ["Provider", text(r.provider)],
      ["Routing strategy", text(r.routing_strategy)],
      ["Status", text(r.status_code)],
      ["Input tokens", text(r.input_tokens)],
      ["Output tokens", text(r.output_tokens)],
      ["Cost", dollars(r.cost_microdollars)],
      ["Tags", (r.tags as string[] | null)?.join(", ") ?? ""],
      ["Metadata", text(r.custom_fields)],
    ]),
    h("h3", null, "Attempts"),
    table(
      [
        ["Attempt", (a) => text(a.attempt)],
        ["Provider", (a) => text(a.provider)],
        ["Provider model", (a) => text(a.provider_model_id)],
        ["Status", (a) => text(a.status_code)],
        ["Error", (a) => text(a.error_code)],
        ["Latency ms", (a) => text(a.latency_ms)],
        ["Final", (a) => (a.is_final_attempt ? "yes" : "no")],
      ],
      r.attempts as Row[],
    ),
  ]);
}

export function Requests({ me, rest }: PageProps) {
  const [offset, setOffset] = useState(0);
  const s = useApi(rest ? null : ws(me.workspace_id, `/requests?limit=${PAGE_SIZE}&offset=${offset}`));
  if (rest) return h(RequestDetail, { me, id: rest });
  if (!s.data) return page("Requests", status(s));
  const rows = s.data.requests as Row[];
  const total = Number(s.data.total);
  return page("Requests", [
    rows.length === 0
      ? empty("No requests recorded yet.")
      : table(
          [
            ["Request ID", (r) => text(r.request_id)],
            ["Created", (r) => text(r.created_at)],
            ["Model", (r) => text(r.model)],
            ["Provider", (r) => text(r.provider)],
            ["Success", (r) => (r.success ? "yes" : "no")],
            ["Tokens", (r) => text(Number(r.input_tokens ?? 0) + Number(r.output_tokens ?? 0))],
            ["Cost", (r) => dollars(r.cost_microdollars)],
            ["Tags", (r) => (r.tags as string[] | null)?.join(", ") ?? ""],
          ],
          rows,
          (r) => go("requests", String(r.request_id)),
        ),
    h("nav", { "aria-label": "Pages of requests" }, [
      h("button", { type: "button", disabled: offset === 0, onClick: () => setOffset(Math.max(0, offset - PAGE_SIZE)) }, "Previous"),
      h("span", null, ` ${total === 0 ? 0 : offset + 1}–${offset + rows.length} of ${total} `),
      h("button", { type: "button", disabled: offset + PAGE_SIZE >= total, onClick: () => setOffset(offset + PAGE_SIZE) }, "Next"),
    ]),
  ]);
}
