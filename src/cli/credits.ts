// Credit top-ups from the CLI: one append-only ledger row; the balance is the ledger's sum.
import { eq, sql } from "drizzle-orm";
import type { Database } from "../platform/db/database";
import { newId } from "../platform/ids";

/** "12.345678" → 12345678 µ$, exactly (no float arithmetic). */
export function usdToMicro(usd: string): number {
  const neg = usd.startsWith("-");
  const [whole, frac = ""] = usd.replace(/^-/, "").split(".");
  const micro = Number(whole) * 1_000_000 + Number(frac.padEnd(6, "0"));
  return neg ? -micro : micro;
}

export async function addCredits(db: Database, workspaceId: string, usd: string) {
  const t = db.t.creditLedger;
  const amount = usdToMicro(usd);
  const now = Date.now();
  return db.tx(async (o) => {
    await o
      .insert(t)
      .values({ id: newId(), workspaceId, amountMicrodollars: amount, reason: "cli_top_up", requestId: null, createdAt: now });
    const rows = await o
      .select({ sum: sql<string | number>`coalesce(sum(${t.amountMicrodollars}), 0)` })
      .from(t)
      .where(eq(t.workspaceId, workspaceId));
    return {
      workspace_id: workspaceId,
      balance_microdollars: Number(rows[0]?.sum ?? 0),
      currency: "USD",
      updated_at: new Date(now).toISOString(),
    };
  });
}
