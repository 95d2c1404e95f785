// Budgets: every budget of the workspace with its spend bar; create, edit and delete when the key holds
// budgets:write. A 202 reply means other gateway instances pick the change up shortly (shared mode).
import "./budgets.css";
import { h } from "preact";
import { useState } from "preact/hooks";
import { ws, type Row } from "../lib/api";
import { useApi } from "../lib/hooks";
import type { PageProps } from "../lib/types";
import { empty, page, status } from "../lib/ui";
import { BudgetCard } from "./budgets-card";
import { CreateBudget, type Targets } from "./budgets-create";

const pendingNote = (r: Row | null) =>
  r?.propagation_status === "pending" ? " Other gateway instances apply it shortly (propagation pending, 202)." : "";

export function Budgets({ me }: PageProps) {
  const canWrite = me.scopes.includes("budgets:write");
  const list = useApi(ws(me.workspace_id, "/budgets"));
  const keys = useApi(me.scopes.includes("keys:read") ? ws(me.workspace_id, "/api-keys?include_revoked=true") : null);
  const providers = useApi("/v1/byok/providers");
  const [notice, setNotice] = useState<string | null>(null);
  const targets: Targets = {
    keys: keys.data ? (keys.data.api_keys as Row[]) : null,
    providers: providers.data ? (providers.data.providers as Row[]) : null,
  };
  const changed = (verb: string, reply: Row | null) => {
    setNotice(`Budget ${verb}.${pendingNote(reply)}`);
    list.reload();
  };
  const budgets = (list.data?.budgets as Row[] | undefined) ?? [];
  return page("Budgets", [
    canWrite
      ? null
      : h(
          "p",
          { class: "note" },
          "Read-only: this API key lacks the budgets:write scope, so budgets cannot be created, changed or deleted here.",
        ),
    h("p", { role: "status", class: "notice" }, notice ?? ""),
    // Budgets wait for the key list (when the key may read it), so a card's name never changes under the reader.
    status(list) ??
      (keys.data || keys.error || !me.scopes.includes("keys:read") ? null : status(keys)) ??
      (budgets.length === 0
        ? empty("No budgets yet.")
        : h(
            "div",
            { class: "bm-budgets" },
            budgets.map((b) =>
              h(BudgetCard, { key: String(b.budget_id), budget: b, workspaceId: me.workspace_id, targets, canWrite, changed }),
            ),
          )),
    canWrite ? h(CreateBudget, { workspaceId: me.workspace_id, targets, created: (b) => changed("created", b) }) : null,
  ]);
}
