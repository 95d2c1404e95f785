// The Overview's side cards: the credit balance and each budget's spend against its limit. A card whose
// scope the key lacks says which scope it needs instead of failing.
import { h } from "preact";
import { ws, type Row } from "../lib/api";
import { useApi } from "../lib/hooks";
import { spendBar } from "../lib/spend-bar";
import type { Me } from "../lib/types";
import { dollars, empty, status, text } from "../lib/ui";

const needs = (scope: string) => h("p", { class: "needs" }, `Needs the ${scope} scope.`);

function card(title: string, id: string, children: unknown) {
  return h("section", { class: "card", "aria-labelledby": id }, [h("h3", { id }, title), children as never]);
}

export function BalanceCard({ me }: { me: Me }) {
  const allowed = me.scopes.includes("billing:read");
  const s = useApi(allowed ? ws(me.workspace_id, "/billing/balance") : null);
  let body;
  if (!allowed) body = needs("billing:read");
  else if (!s.data) body = status(s);
  else
    body = [
      h("p", { class: "balance", "data-balance": "" }, dollars(s.data.balance_microdollars)),
      h("p", { class: "muted" }, `${text(s.data.currency)}, as of ${text(s.data.updated_at)}`),
    ];
  return card("Credit balance", "card-balance", body);
}

/** "workspace · monthly", "api_key <id> · daily": what a budget covers and over which period. */
export const budgetLabel = (b: Row) => `${text(b.scope)}${b.scope_id ? ` ${text(b.scope_id)}` : ""} · ${text(b.period)}`;

export function BudgetsCard({ me }: { me: Me }) {
  const allowed = me.scopes.includes("budgets:read");
  const s = useApi(allowed ? ws(me.workspace_id, "/budgets") : null);
  let body;
  if (!allowed) body = needs("budgets:read");
  else if (!s.data) body = status(s);
  else {
    const budgets = s.data.budgets as Row[];
    body =
      budgets.length === 0
        ? empty("No budgets.")
        : h(
            "ul",
            { class: "budget-list" },
            budgets.map((b) =>
              h("li", null, [
                h("span", { class: "budget-name" }, budgetLabel(b)),
                spendBar(budgetLabel(b), Math.round(Number(b.spend) * 1e6), Math.round(Number(b.limit) * 1e6)),
              ]),
            ),
          );
  }
  return card("Budgets", "card-budgets", body);
}
