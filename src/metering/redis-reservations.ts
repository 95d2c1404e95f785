// Shared mode's admission (reservations.ts): a call that holds credit takes its hold and its budget
// reservations in one Redis script through the budget counters, which share one RedisAdmission with
// the credit holds; their ends are queued together into one batched settle. While Redis cannot take
// them, both stores fall back to their local counters, one after the other.
import type { RedisBudgetCounters } from "./redis-budgets";
import type { RedisCreditHolds } from "./redis-credit-holds";
import type { SpendContext } from "./budgets";
import { SequentialReservations, type CreditAsk, type Held, type Reservations, type Reserved } from "./reservations";

export class RedisReservations implements Reservations {
  private readonly sequential: SequentialReservations;

  constructor(
    private readonly holds: RedisCreditHolds,
    private readonly budgets: RedisBudgetCounters,
  ) {
    this.sequential = new SequentialReservations(holds, budgets);
  }

  async reserve(ctx: SpendContext, amount: number, credit: CreditAsk | null): Promise<Reserved> {
    if (!credit) return this.sequential.reserve(ctx, amount, null);
    const part = { key: this.holds.keyOf(ctx.workspaceId), ...credit };
    const joint = await this.budgets.reserveWithCredit(ctx, amount, part);
    if (joint === null) return this.sequential.reserve(ctx, amount, credit);
    const { result, creditHeld } = joint;
    if (!result.ok) return result;
    const r = result.reservation;
    const hold = creditHeld ? this.holds.adopt({ id: r.id, workspaceId: ctx.workspaceId, amount: r.amount }) : null;
    return { ok: true, held: { reservation: r, hold } };
  }

  settle(held: Held, actualMicrodollars: number, served: SpendContext): void | Promise<void> {
    return this.sequential.settle(held, actualMicrodollars, served);
  }

  release(held: Held): void | Promise<void> {
    return this.sequential.release(held);
  }
}
