// What admission takes for one call (guards.ts): a credit hold when the call may spend platform credit,
// and its reservation in every enforced budget, taken together so that a refusal of either leaves
// nothing of the other. One interface over both stores so that shared mode can take both in one Redis
// script (redis-reservations.ts); SequentialReservations takes them one after the other, synchronously
// with the memory stores.
import type { BudgetCounters, Reservation, ReserveResult, SpendContext } from "./budgets";
import type { CreditHold, CreditHolds } from "./credit-holds";

type MaybePromise<T> = T | Promise<T>;

export interface CreditAsk {
  /** The workspace's balance as this instance sees it; a hold is taken while balance − held > 0. */
  balance: number;
  /** No BYOK candidate could serve the call: a refused hold refuses it (else it goes on without one). */
  required: boolean;
}

export interface Held {
  readonly reservation: Reservation;
  /** Null when no hold was asked for, or when one was refused and not required. */
  readonly hold: CreditHold | null;
}

export type Reserved = { ok: true; held: Held } | { ok: false; code: "insufficient_credits" } | Extract<ReserveResult, { ok: false }>;

export interface Reservations {
  reserve(ctx: SpendContext, amount: number, credit: CreditAsk | null): MaybePromise<Reserved>;
  /** Ends both; the cost counts against the budgets that apply to `served`. Ending twice has no effect. */
  settle(held: Held, actualMicrodollars: number, served: SpendContext): MaybePromise<void>;
  release(held: Held): MaybePromise<void>;
}

export const NO_CREDIT: Reserved = { ok: false, code: "insufficient_credits" };

/** Both waited for (the caller ignores failures; a test may wait). */
function both(a: void | Promise<void>, b: void | Promise<void>): void | Promise<void> {
  if (a instanceof Promise || b instanceof Promise) return Promise.all([a, b]).then(() => undefined);
}

export class SequentialReservations implements Reservations {
  constructor(
    private readonly holds: CreditHolds,
    private readonly budgets: BudgetCounters,
  ) {}

  reserve(ctx: SpendContext, amount: number, credit: CreditAsk | null): MaybePromise<Reserved> {
    if (!credit) return this.reserveBudgets(ctx, amount, null);
    const taken = this.holds.reserve(ctx.workspaceId, credit.balance, amount);
    const next = (hold: CreditHold | null) => (hold === null && credit.required ? NO_CREDIT : this.reserveBudgets(ctx, amount, hold));
    return taken instanceof Promise ? taken.then(next) : next(taken);
  }

  settle(held: Held, actualMicrodollars: number, served: SpendContext): void | Promise<void> {
    return both(held.hold ? this.holds.release(held.hold) : undefined, this.budgets.settle(held.reservation, actualMicrodollars, served));
  }

  release(held: Held): void | Promise<void> {
    return both(held.hold ? this.holds.release(held.hold) : undefined, this.budgets.release(held.reservation));
  }

  private reserveBudgets(ctx: SpendContext, amount: number, hold: CreditHold | null): MaybePromise<Reserved> {
    const reserved = this.budgets.reserve(ctx, amount);
    const done = (r: ReserveResult): Reserved => {
      if (r.ok) return { ok: true, held: { reservation: r.reservation, hold } };
      if (hold) void Promise.resolve(this.holds.release(hold)).catch(() => {});
      return r;
    };
    return reserved instanceof Promise ? reserved.then(done) : done(reserved);
  }
}
