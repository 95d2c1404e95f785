// What the Playground shows under an answer: the route that served it (routing_metadata: provider, model,
// strategy, the router's estimates, warnings, earlier attempts), its cost and tokens, the time to first
// token as the browser measured it beside the gateway's, and a link to the request's record.
import { h, type VNode } from "preact";
import type { Row } from "../lib/api";
import { href } from "../lib/route";
import { dollars, fields, table, text } from "../lib/ui";
import type { Answer } from "./playground-stream";

const ms = (v: unknown) => (typeof v === "number" ? `${Math.round(v)} ms` : "—");
const tps = (v: unknown) => (typeof v === "number" ? `${v} tokens/s` : "—");
const yesNo = (v: unknown) => (v === true ? "yes" : "no");

function tokens(u: Row | null): string {
  if (!u) return "—";
  return `${text(u.prompt_tokens)} in, ${text(u.completion_tokens)} out`;
}

export function answerDetails(a: Answer, index: number): VNode<any> {
  const rm = a.routing ?? {};
  const cost = (rm.cost ?? null) as Row | null;
  const warnings = (rm.warnings as Row[] | undefined) ?? [];
  const attempts = (rm.attempts as Row[] | undefined) ?? [];
  const pairs: [string, VNode<any> | string][] = [
    ["Provider", text(rm.provider)],
    ["Provider model", text(rm.provider_model_id)],
    ["Model", text(rm.model_canonical)],
    ["Strategy", text(rm.routing_strategy)],
    ["Cost", cost ? dollars(cost.microdollars) : "—"],
    ["Tokens", tokens(a.usage)],
    ["TTFT (browser)", ms(a.ttftMs)],
    ["TTFT (gateway)", ms(rm.ttft_ms)],
    ["TTFT estimate", ms(rm.ttft_ms_estimate)],
    ["Throughput", tps(rm.throughput_tps)],
    ["Throughput estimate", tps(rm.throughput_tps_estimate)],
    ["Exploration", yesNo(rm.exploration)],
    ["Sticky", yesNo(rm.sticky)],
    ["Total time", ms(a.totalMs)],
    ["Request", a.requestId ? h("a", { href: href("requests", a.requestId) }, a.requestId) : "—"],
  ];
  return h("section", { class: "pg-meta", "aria-label": `Answer ${index} routing` }, [
    a.routing ? null : h("p", { class: "hint" }, a.stopped ? "Stopped before the routing metadata arrived." : "No routing metadata."),
    fields(pairs),
    warnings.length > 0
      ? h("div", null, [
          h("h4", null, "Warnings"),
          h(
            "ul",
            { class: "pg-warnings" },
            warnings.map((w) => h("li", null, `${text(w.code)}: ${text(w.message)}`)),
          ),
        ])
      : null,
    attempts.length > 0
      ? h("div", null, [
          h("h4", null, "Earlier attempts"),
          table(
            [
              ["Provider", (r) => text(r.provider)],
              ["Provider model", (r) => text(r.provider_model_id)],
              ["Status", (r) => text(r.status)],
              ["Error", (r) => text(r.error_code)],
            ],
            attempts,
            undefined,
            `Answer ${index} earlier attempts`,
          ),
        ])
      : null,
  ]);
}
