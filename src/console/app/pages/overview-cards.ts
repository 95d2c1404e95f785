// The Overview's side cards: the credit balance and each budget's spend against its limit. A card whose
// scope the key lacks says which scope it needs instead of failing.
import { h } from "preact";
import { ws, type Row } from "../lib/api";
import { useApi } from "../lib/hooks";
import { spendBar } from "../lib/spend-bar";
import type { Me } from "../lib/types";
import { dollars, empty, status, text } from "../lib/ui";

/** A card's load when the key holds `scope`; until it has data, what the card shows instead (the scope it needs, or the load's state). */
function useScoped(me: Me, scope: string, path: string) {
  const allowed = me.scopes.includes(scope);
  const s = useApi(allowed ? ws(me.workspace_id, path) : null);
  const instead = allowed ? status(s) : h("p", { class: "needs" }, `Needs the ${scope} scope.`);
  return { data: s.data, instead };
}

function card(title: string, id: string, children: unknown) {
  return h("section", { class: "card", "aria-labelledby": id }, [h("h3", { id }, title), children as never]);
}

export function BalanceCard({ me }: { me: Me }) {
  const { data, instead } = useScoped(me, "billing:read", "/billing/balance");
  const body =
    instead ??
    (data && [
      h("p", { class: "balance", "data-balance": "" }, dollars(data.balance_microdollars)),
      h("p", { class: "muted" }, `${text(data.currency)}, as of ${text(data.updated_at)}`),
    ]);
  return card("Credit balance", "card-balance", body);
}

/** "workspace · monthly", "api_key <id> · daily": what a budget covers and over which period. */
export const budgetLabel = (b: Row) => `${text(b.scope)}${b.scope_id ? ` ${text(b.scope_id)}` : ""} · ${text(b.period)}`;

export function BudgetsCard({ me }: { me: Me }) {
  const { data, instead } = useScoped(me, "budgets:read", "/budgets");
  const budgets = (data?.budgets as Row[] | undefined) ?? [];
  const body =
    instead ??
    (budgets.length === 0
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
        ));
  return card("Budgets", "card-budgets", body);
}
