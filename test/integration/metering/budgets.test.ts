import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  MemoryBudgetCounters,
  RESERVATION_TTL_MS,
  type BudgetDef,
  type Reservation,
  type SpendContext,
} from "../../../src/metering/budgets";
import { writeBatch } from "../../../src/metering/record-batch";
import { DIALECTS, makeRecord, openTestDb, type TestDb } from "./test-db";

const MON = Date.UTC(2026, 2, 2, 12); // Monday 2 March 2026, noon UTC
const platform: SpendContext = { workspaceId: "ws1", apiKeyId: "key1", provider: "alpha", byok: false };
const byokAlpha: SpendContext = { workspaceId: "ws1", apiKeyId: "key1", provider: "alpha", byok: true };

function budget(over: Partial<BudgetDef>): BudgetDef {
  return {
    id: crypto.randomUUID(),
    workspaceId: "ws1",
    scope: "workspace",
    scopeId: "",
    period: "daily",
    limitMicrodollars: 1000,
    enforce: true,
    includeByok: false,
    ...over,
  };
}

function ok(r: ReturnType<MemoryBudgetCounters["reserve"]>): Reservation {
  if (!r.ok) throw new Error(`expected a reservation, got: ${r.message}`);
  return r.reservation;
}

for (const dialect of DIALECTS) {
  describe(`MemoryBudgetCounters on ${dialect}`, () => {
    let t: TestDb;
    let now = MON;
    let counters: MemoryBudgetCounters;
    beforeEach(async () => {
      t = await openTestDb(dialect);
      now = MON;
      counters = new MemoryBudgetCounters(t.db, () => now);
    });
    afterEach(async () => {
      await t.cleanup();
    });

    test("a reservation never settled stops holding headroom after RESERVATION_TTL_MS", async () => {
      await counters.upsertBudget(budget({ limitMicrodollars: 1000 }));
      ok(counters.reserve(platform, 5000, now)); // holds the whole budget and is never settled
      expect(counters.reserve(platform, 1, now).ok).toBe(false);
      now += RESERVATION_TTL_MS + 60_001;
      expect(counters.reserve(platform, 1, now).ok).toBe(true);
    });

    test("load: spend of the current period comes from final attempts matching each scope", async () => {
      const at = (h: number) => Date.UTC(2026, 2, 2, h);
      await writeBatch(
        t.db,
        [
          makeRecord({ createdAt: at(1), costMicrodollars: 100 }),
          makeRecord({ createdAt: at(2), costMicrodollars: 40, apiKeyId: "key2" }),
          makeRecord({ createdAt: at(3), costMicrodollars: 7, apiKeySource: "byok", chargeCredits: false }),
          makeRecord({ createdAt: at(4), costMicrodollars: 5, isFinalAttempt: false }),
          makeRecord({ createdAt: Date.UTC(2026, 2, 1, 23, 59), costMicrodollars: 1000 }), // Sunday: last week
          makeRecord({ createdAt: at(5), costMicrodollars: 9, workspaceId: "ws2" }),
        ],
        now,
      );
      const rows = [
        budget({ id: "ws-daily" }),
        budget({ id: "ws-daily-byok", period: "weekly", includeByok: true }),
        budget({ id: "key2-monthly", scope: "api_key", scopeId: "key2", period: "monthly" }),
        budget({ id: "byok-alpha", scope: "byok", scopeId: "alpha" }),
      ];
      const created = Date.now();
      await t.db.orm.insert(t.db.t.budgets).values(rows.map((b) => ({ ...b, createdAt: created, updatedAt: created })));
      await counters.load();
      expect(counters.spend("ws-daily")).toBe(140);
      expect(counters.spend("ws-daily-byok")).toBe(147); // the Sunday call is in the previous week
      expect(counters.spend("key2-monthly")).toBe(40);
      expect(counters.spend("byok-alpha")).toBe(7);
    });

    test("refuses once spend reaches the limit, naming scope and period", async () => {
      await counters.upsertBudget(budget({ id: "b", limitMicrodollars: 1000 }));
      const r = ok(counters.reserve(platform, 600));
      counters.settle(r, 1000);
      const refused = counters.reserve(platform, 1);
      expect(refused.ok).toBe(false);
      if (refused.ok) return;
      expect(refused.code).toBe("budget_exceeded");
      expect(refused.budget.id).toBe("b");
      expect(refused.message).toContain("daily");
      expect(refused.message).toContain("workspace");
      // Other workspaces and BYOK calls (include_byok false) are not limited by it.
      expect(counters.reserve({ ...platform, workspaceId: "ws2" }, 1).ok).toBe(true);
      expect(counters.reserve(byokAlpha, 1).ok).toBe(true);
    });

    test("a non-enforced budget counts spend but never refuses", async () => {
      await counters.upsertBudget(budget({ id: "soft", enforce: false, limitMicrodollars: 10 }));
      counters.settle(ok(counters.reserve(platform, 5)), 50);
      expect(counters.reserve(platform, 5).ok).toBe(true);
      expect(counters.spend("soft")).toBe(50);
    });

    test("concurrent reservations never overshoot beyond the calls in flight when the limit was reached", async () => {
      const limit = 10_000;
      await counters.upsertBudget(budget({ id: "b", limitMicrodollars: limit }));
      const estimate = 700;
      const inFlight: Reservation[] = [];
      for (let i = 0; i < 100; i++) {
        const r = counters.reserve(platform, estimate);
        if (r.ok) inFlight.push(r.reservation);
      }
      // Admitted while spent + reserved < limit: ceil(10000 / 700) = 15 calls.
      expect(inFlight).toHaveLength(15);
      // Every admitted call costs at most its estimate: the overshoot is bounded by those in flight.
      for (const r of inFlight) counters.settle(r, estimate);
      expect(counters.spend("b")).toBe(15 * estimate);
      expect(counters.spend("b") - limit).toBeLessThan(estimate);
      expect(counters.reserve(platform, 1).ok).toBe(false);
    });

    test("released reservations free their headroom; ending a reservation twice has no effect", async () => {
      await counters.upsertBudget(budget({ id: "b", limitMicrodollars: 1000 }));
      const a = ok(counters.reserve(platform, 1000));
      expect(counters.reserve(platform, 1).ok).toBe(false);
      counters.release(a);
      counters.release(a);
      const b = ok(counters.reserve(platform, 400));
      counters.settle(b, 300);
      counters.settle(b, 300);
      expect(counters.spend("b")).toBe(300);
      expect(counters.reserve(platform, 1).ok).toBe(true);
    });

    test("scopes: api_key budgets bind only that key; byok budgets only that provider's BYOK calls", async () => {
      await counters.upsertBudget(budget({ id: "k", scope: "api_key", scopeId: "key1", limitMicrodollars: 10 }));
      await counters.upsertBudget(budget({ id: "p", scope: "byok", scopeId: "alpha", limitMicrodollars: 10 }));
      counters.settle(ok(counters.reserve(platform, 1)), 10);
      counters.settle(ok(counters.reserve(byokAlpha, 1)), 10);
      expect(counters.reserve(platform, 1).ok).toBe(false);
      expect(counters.reserve({ ...platform, apiKeyId: "key2" }, 1).ok).toBe(true);
      expect(counters.reserve({ ...byokAlpha, apiKeyId: "key2" }, 1).ok).toBe(false);
      expect(counters.reserve({ ...byokAlpha, provider: "beta" }, 1).ok).toBe(true);
    });

    test("periods roll over at the UTC boundary without a restart", async () => {
      await counters.upsertBudget(budget({ id: "d", period: "daily", limitMicrodollars: 100 }));
      await counters.upsertBudget(budget({ id: "w", period: "weekly", limitMicrodollars: 1_000_000 }));
      now = Date.UTC(2026, 2, 8, 23, 59, 59, 999); // Sunday, last ms of the week
      // A call in flight across midnight.
      const spanning = ok(counters.reserve(platform, 0));
      counters.settle(ok(counters.reserve(platform, 1)), 100);
      expect(counters.reserve(platform, 1).ok).toBe(false);
      now += 1; // Monday 00:00:00.000: new day and new week
      expect(counters.spend("d")).toBe(0);
      expect(counters.spend("w")).toBe(0);
      const r = ok(counters.reserve(platform, 1));
      counters.settle(spanning, 50); // belongs to the previous period: does not count in the new one
      counters.settle(r, 30);
      expect(counters.spend("d")).toBe(30);
      expect(counters.spend("w")).toBe(30);
    });

    test("headers: the tightest budget per period, in USD, only for periods that have one", async () => {
      await counters.upsertBudget(budget({ id: "ws", period: "daily", limitMicrodollars: 10_000_000 }));
      await counters.upsertBudget(budget({ id: "key", scope: "api_key", scopeId: "key1", period: "daily", limitMicrodollars: 2_000_000 }));
      await counters.upsertBudget(budget({ id: "m", period: "monthly", limitMicrodollars: 50_000_000 }));
      counters.settle(ok(counters.reserve(platform, 0)), 1_234_567);
      expect(counters.headers("ws1", "key1")).toEqual({
        "X-Budget-Daily-Spend": "1.234567",
        "X-Budget-Daily-Limit": "2.00",
        "X-Budget-Monthly-Spend": "1.234567",
        "X-Budget-Monthly-Limit": "50.00",
      });
      expect(counters.headers("ws1", "key2")["X-Budget-Daily-Limit"]).toBe("10.00");
      expect(counters.headers("ws2", "key1")).toEqual({});
    });

    test("limit changes keep the counters; removed budgets stop applying", async () => {
      const b = budget({ id: "b", limitMicrodollars: 100 });
      await counters.upsertBudget(b);
      counters.settle(ok(counters.reserve(platform, 0)), 100);
      expect(counters.reserve(platform, 1).ok).toBe(false);
      await counters.upsertBudget({ ...b, limitMicrodollars: 200 });
      expect(counters.spend("b")).toBe(100);
      expect(counters.reserve(platform, 1).ok).toBe(true);
      counters.removeBudget("b");
      expect(counters.budget("b")).toBeUndefined();
      expect(counters.headers("ws1", "key1")).toEqual({});
    });
  });
}
