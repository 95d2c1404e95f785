// One request (`#/requests/<X-Request-ID>`): the call, its tokens and cost, the routing decision of the
// final attempt, and every attempt with its own route, status, timings, tokens and estimates.
import { h, type VNode } from "preact";
import { ws, type Row } from "../lib/api";
import { go, href } from "../lib/route";
import type { Me } from "../lib/types";
import { dollars, empty, fields, status, table, text } from "../lib/ui";
import { useLoad } from "./requests-query";

interface Warning {
  type: string;
  code: string;
  message: string;
}
interface Decision {
  ttft_ms_estimate: number;
  throughput_tps_estimate: number;
  exploration: boolean;
  sticky: boolean;
  warnings: Warning[];
}

const yesNo = (v: unknown) => (v ? "yes" : "no");
/** A value, or a dash for none, so an empty field reads as "none" rather than as missing. */
const val = (v: unknown) => (v === null || v === undefined || v === "" ? "—" : text(v));
const decisionOf = (r: Row) => (r.routing_decision ?? null) as Decision | null;

function routingDecision(r: Row): VNode<any>[] {
  const d = decisionOf(r);
  const head = h("h3", null, "Routing decision");
  if (!d) {
    return [
      head,
      fields([["Strategy", val(r.routing_strategy)]]),
      empty("No estimates recorded for this request (it was stored before they were kept, or no route was tried)."),
    ];
  }
  return [
    head,
    fields([
      ["Strategy", val(r.routing_strategy)],
      ["TTFT estimate", `${d.ttft_ms_estimate} ms`],
      ["Throughput estimate", `${d.throughput_tps_estimate} tokens/s`],
      ["Exploration", yesNo(d.exploration)],
      ["Sticky", yesNo(d.sticky)],
    ]),
    h("h4", null, "Warnings"),
    d.warnings.length === 0
      ? empty("No warnings.")
      : h(
          "ul",
          { class: "request-warnings", "aria-label": "Warnings" },
          d.warnings.map((w) => h("li", null, [h("code", null, w.code), ` (${w.type}): `, w.message])),
        ),
  ];
}

function attempts(r: Row): VNode<any> {
  return table(
    [
      ["Attempt", (a) => val(a.attempt)],
      ["Provider", (a) => val(a.provider)],
      ["Provider model", (a) => val(a.provider_model_id)],
      ["Key source", (a) => val(a.api_key_source)],
      ["Status", (a) => val(a.status_code)],
      ["Error", (a) => val(a.error_code)],
      ["Latency ms", (a) => val(a.latency_ms)],
      ["TTFT ms", (a) => val(a.ttft_ms)],
      ["Input tokens", (a) => val(a.input_tokens)],
      ["Output tokens", (a) => val(a.output_tokens)],
      ["Cost", (a) => dollars(a.cost_microdollars)],
      ["TTFT estimate ms", (a) => val(decisionOf(a)?.ttft_ms_estimate)],
      ["Throughput estimate", (a) => val(decisionOf(a)?.throughput_tps_estimate)],
      ["Warnings", (a) => val((decisionOf(a)?.warnings ?? []).map((w) => w.code).join(", "))],
      ["Final", (a) => yesNo(a.is_final_attempt)],
    ],
    r.attempts as Row[],
    undefined,
    "Attempts",
  );
}

export function RequestDetail({ me, id, back }: { me: Me; id: string; back: string | undefined }) {
  const s = useLoad(ws(me.workspace_id, `/requests/${encodeURIComponent(id)}`));
  const backButton = h("button", { type: "button", onClick: () => go("requests", back) }, "← Back to requests");
  const region = (children: (VNode<any> | VNode<any>[] | null)[]) =>
    h("section", { "aria-label": "Request detail", class: "request-detail" }, [backButton, ...children]);
  if (s.failure?.status === 404) {
    return region([h("h2", null, "Request not found"), empty(`No request with X-Request-ID “${id}” in this workspace.`)]);
  }
  if (!s.data) return region([status({ data: null, error: s.failure?.message ?? null })]);
  const r = s.data;
  return region([
    h("h2", null, "Request"),
    h("p", null, h("a", { href: href("requests", id) }, "Link to this request")),
    fields([
      ["Request ID", val(r.request_id)],
      ["Created", val(r.created_at)],
      ["Endpoint", val(r.endpoint)],
      ["Model", val(r.model)],
      ["Canonical model", val(r.model_canonical)],
      ["Provider", val(r.provider)],
      ["Provider model", val(r.provider_model_id)],
      ["Key source", val(r.api_key_source)],
      ["Status", val(r.status_code)],
      ["Success", yesNo(r.success)],
      ["Error", val(r.error_code)],
      ["Latency ms", val(r.latency_ms)],
      ["TTFT ms", val(r.ttft_ms)],
      ["Trace ID", val(r.trace_id)],
      ["User ID", val(r.user_id)],
      ["Tags", val((r.tags as string[] | null)?.join(", "))],
      ["Metadata", val(r.custom_fields)],
    ]),
    h("h3", null, "Tokens and cost"),
    fields([
      ["Input tokens", val(r.input_tokens)],
      ["Output tokens", val(r.output_tokens)],
      ["Cached tokens", val(r.cached_tokens)],
      ["Reasoning tokens", val(r.reasoning_tokens)],
      ["Cost", `${dollars(r.cost_microdollars)}${r.usage_estimated ? " (estimated: the provider reported no usage)" : ""}`],
    ]),
    ...routingDecision(r),
    h("h3", null, "Attempts"),
    attempts(r),
  ]);
}
