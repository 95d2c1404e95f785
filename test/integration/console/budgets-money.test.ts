// The Budgets page's limit field: what an operator types in dollars reaches the gateway as exactly the
// microdollars meant, through the gateway's own USD → microdollar conversion; what it cannot hold exactly
// is refused beside the field, and what is no number is left for the API to name.
import { describe, expect, test } from "bun:test";
import { ApiFailure } from "../../../src/console/app/lib/api";
import { limitValue, newIdempotencyKey, toMicro } from "../../../src/console/app/pages/budgets-money";
import { limitToMicro } from "../../../src/management/budgets/service";

describe("budget limits typed in dollars", () => {
  test("plain decimals arrive as the microdollars typed", () => {
    const cases: [string, number][] = [
      ["10", 10_000_000],
      ["0.1", 100_000],
      ["$3", 3_000_000],
      ["12.345678", 12_345_678],
      [".5", 500_000],
      ["0.000001", 1],
      ["999999999.999999", 999_999_999_999_999],
    ];
    for (const [typed, micro] of cases) expect([typed, limitToMicro(limitValue(typed) as number)]).toEqual([typed, micro]);
  });

  test("every microdollar count survives the trip, and the spend bar's conversion back", () => {
    for (let micro = 1; micro < 3_000_000; micro += 997) {
      const typed = `${Math.floor(micro / 1e6)}.${String(micro % 1e6).padStart(6, "0")}`;
      const usd = limitValue(typed) as number;
      expect(limitToMicro(usd)).toBe(micro);
      expect(toMicro(usd)).toBe(micro);
    }
  });

  test("more than six places is refused beside the limit field; other text goes to the API as typed", () => {
    let failure: unknown;
    try {
      limitValue("1.0000001");
    } catch (e) {
      failure = e;
    }
    expect(failure).toBeInstanceOf(ApiFailure);
    expect((failure as ApiFailure).param).toBe("limit");
    expect(limitValue("")).toBeUndefined();
    expect(limitValue("  ")).toBeUndefined();
    expect(limitValue("-5")).toBe(-5);
    expect(limitValue("abc")).toBe("abc");
    expect(limitValue("1e3")).toBe("1e3");
    expect(limitValue(".")).toBe(".");
  });

  test("idempotency keys fit the API's pattern and differ each time", () => {
    const keys = new Set(Array.from({ length: 50 }, newIdempotencyKey));
    expect(keys.size).toBe(50);
    for (const k of keys) expect(k).toMatch(/^[A-Za-z0-9_-]{1,255}$/);
  });
});
