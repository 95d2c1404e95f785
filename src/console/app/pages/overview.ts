// Overview: the workspace's usage over the last 30 days, in total and by model.
import { h } from "preact";
import { ws, type Row } from "../lib/api";
import { useApi } from "../lib/hooks";
import type { PageProps } from "../lib/types";
import { dollars, empty, page, status, table, text } from "../lib/ui";

export function Overview({ me }: PageProps) {
  const s = useApi(ws(me.workspace_id, "/usage?group_by=model"));
  if (!s.data) return page("Overview", status(s));
  const t = s.data.total as Row;
  const data = s.data.data as Row[];
  return page("Overview", [
    h("p", null, `${text(s.data.start_date)} to ${text(s.data.end_date)}`),
    h(
      "dl",
      { class: "totals" },
      [
        ["Requests", t.requests],
        ["Errors", t.errors],
        ["Cost", dollars(t.cost_microdollars)],
        ["Tokens", t.total_tokens],
      ].flatMap(([k, v]) => [h("dt", null, text(k)), h("dd", { "data-total": text(k) }, text(v))]),
    ),
    data.length === 0
      ? empty("No calls in this range yet.")
      : table(
          [
            ["Model", (r) => text(r.group)],
            ["Requests", (r) => text(r.requests)],
            ["Errors", (r) => text(r.errors)],
            ["Input tokens", (r) => text(r.input_tokens)],
            ["Output tokens", (r) => text(r.output_tokens)],
            ["Cost", (r) => dollars(r.cost_microdollars)],
          ],
          data,
        ),
  ]);
}
