// Credit balance: the sum of the workspace's append-only credit ledger (top-ups, CLI `credits add`,
// and debits written with request records).
import { Type } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { eq, max, sql } from "drizzle-orm";
import type { Database } from "../../platform/db/database";
import { mount, type Mounting } from "../mount";
import type { WorkspaceRepo } from "../workspaces/repo";

export const Balance = Type.Object({
  workspace_id: Type.String(),
  balance_microdollars: Type.Integer({ description: "may be negative" }),
  currency: Type.Literal("USD"),
  updated_at: Type.String({ format: "date-time", description: "the last ledger entry, or the workspace's creation" }),
});

/** What the balance route reads: the credit ledger, the workspace (its creation time) and the clock. */
export interface BillingFeature {
  db: Database;
  workspaces: WorkspaceRepo;
  now: () => number;
}

export function billingRoutes(app: Elysia, m: Mounting, d: BillingFeature): Elysia {
  mount(
    app,
    m,
    "billing.balance",
    async (c) => {
      const t = d.db.t.creditLedger;
      const rows = await d.db.orm
        .select({ sum: sql<string | number | null>`sum(${t.amountMicrodollars})`, last: max(t.createdAt) })
        .from(t)
        .where(eq(t.workspaceId, c.workspaceId));
      const last = rows[0]?.last;
      const ws = last == null ? await d.workspaces.get(c.workspaceId) : undefined;
      return {
        status: 200,
        body: {
          workspace_id: c.workspaceId,
          balance_microdollars: Number(rows[0]?.sum ?? 0),
          currency: "USD" as const,
          // The last ledger entry; a workspace that never had one reports its creation time.
          updated_at: new Date(Number(last ?? ws?.createdAt ?? d.now())).toISOString(),
        },
      };
    },
    { response: Balance },
  );
  return app;
}
