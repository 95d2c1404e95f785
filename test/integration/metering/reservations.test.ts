// The single-instance admission (SequentialReservations over the memory stores): synchronous, with the
// same rules as shared mode's one script. A budget refusal leaves no credit hold and a credit refusal no
// reservation; a refused hold that a BYOK route makes optional still reserves the budgets.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { MemoryBudgetCounters, type BudgetDef, type SpendContext } from "../../../src/metering/budgets";
import { MemoryCreditHolds } from "../../../src/metering/credit-holds";
import { SequentialReservations, type Held, type Reserved } from "../../../src/metering/reservations";
import { DIALECTS, openTestDb, type TestDb } from "./test-db";

const ctx: SpendContext = { workspaceId: "ws1", apiKeyId: "key1", provider: "alpha", byok: false };
const budget = (limitMicrodollars: number): BudgetDef => ({
  id: crypto.randomUUID(),
  workspaceId: "ws1",
  scope: "workspace",
  scopeId: "",
  period: "daily",
  limitMicrodollars,
  enforce: true,
  includeByok: false,
});

/** The memory stores answer at once: a promise here would be a regression (one per call on the hot path). */
function now(r: Reserved | Promise<Reserved>): Reserved {
  if (r instanceof Promise) throw new Error("expected a synchronous answer");
  return r;
}
const held = (r: Reserved): Held => {
  if (!r.ok) throw new Error(`expected an admission, got ${r.code}`);
  return r.held;
};

for (const dialect of DIALECTS) {
  describe(`SequentialReservations on ${dialect}`, () => {
    let t: TestDb;
    let holds: MemoryCreditHolds;
    let budgets: MemoryBudgetCounters;
    let reservations: SequentialReservations;
    beforeEach(async () => {
      t = await openTestDb(dialect);
      holds = new MemoryCreditHolds();
      budgets = new MemoryBudgetCounters(t.db);
      reservations = new SequentialReservations(holds, budgets);
    });
    afterEach(async () => {
      await t.cleanup();
    });

    test("a hold and a reservation taken together, synchronously; settling ends both", async () => {
      const d = budget(1000);
      await budgets.upsertBudget(d);
      const h = held(now(reservations.reserve(ctx, 300, { balance: 500, required: true })));
      expect(h.hold).not.toBeNull();
      expect(holds.held("ws1")).toBe(300);
      expect(reservations.settle(h, 250, ctx)).toBeUndefined();
      expect(holds.held("ws1")).toBe(0);
      expect(budgets.spend(d.id)).toBe(250);
    });

    test("a budget refusal leaves no credit hold; a credit refusal reserves nothing", async () => {
      const d = budget(100);
      await budgets.upsertBudget(d);
      held(now(reservations.reserve(ctx, 100, null))); // the budget is now covered by a call in flight
      expect(now(reservations.reserve(ctx, 10, { balance: 500, required: true }))).toMatchObject({ ok: false, code: "budget_exceeded" });
      expect(holds.held("ws1")).toBe(0);

      budgets.removeBudget(d.id);
      const open = budget(1000);
      await budgets.upsertBudget(open);
      expect(now(reservations.reserve(ctx, 10, { balance: 0, required: true }))).toEqual({ ok: false, code: "insufficient_credits" });
      // Nothing reserved: a call of the whole limit still fits.
      expect(held(now(reservations.reserve(ctx, 1000, null))).reservation.holds).toHaveLength(1);
      expect(now(reservations.reserve(ctx, 1, null)).ok).toBe(false);
    });

    test("a refused hold that a BYOK route makes optional still reserves the budgets", async () => {
      await budgets.upsertBudget(budget(1000));
      const h = held(now(reservations.reserve(ctx, 10, { balance: 0, required: false })));
      expect(h.hold).toBeNull();
      expect(h.reservation.holds).toHaveLength(1);
      reservations.release(h);
      reservations.release(h); // twice: no effect
      expect(holds.held("ws1")).toBe(0);
    });
  });
}
