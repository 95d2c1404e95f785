// Credit reservations (issue 52 item 3): a platform-key call holds its worst-case cost against the
// workspace's balance from admission until it settles, so concurrent calls cannot all spend the same
// credit. The rule mirrors the budgets' (docs/contract.md "Rate limits, credits and budgets"): a call is admitted while
// balance − held > 0, then holds its estimate. Once the holds cover the balance no call is admitted,
// so the balance can go below zero by at most one call's worst-case cost (the last one admitted).
//
// CreditHolds is the seam for the shared (Redis) store; MemoryCreditHolds is the single-instance one.
import { RESERVATION_TTL_MS } from "./budgets";

type MaybePromise<T> = T | Promise<T>;

export interface CreditHold {
  readonly id: string;
  readonly workspaceId: string;
  readonly amount: number;
}

export interface CreditHolds {
  /** A hold of `amount` when balance − held > 0, else null (the call gets insufficient_credits). */
  reserve(workspaceId: string, balance: number, amount: number): MaybePromise<CreditHold | null>;
  /** Ends a hold (the call settled, failed, or was never sent); ending it twice has no effect. */
  release(hold: CreditHold): MaybePromise<void>;
}

export class MemoryCreditHolds implements CreditHolds {
  private readonly heldByWs = new Map<string, number>();
  /** Open holds and when they stop counting (a hold never released must not block the workspace for ever). */
  private readonly open = new Map<CreditHold, number>();
  private seq = 0;
  private lastSweep = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  reserve(workspaceId: string, balance: number, amount: number): CreditHold | null {
    const now = this.clock();
    this.sweep(now);
    if (balance - this.held(workspaceId) <= 0) return null;
    const hold: CreditHold = { id: `c${++this.seq}`, workspaceId, amount: Math.max(0, Math.ceil(amount)) };
    this.heldByWs.set(workspaceId, this.held(workspaceId) + hold.amount);
    this.open.set(hold, now + RESERVATION_TTL_MS);
    return hold;
  }

  release(hold: CreditHold): void {
    if (!this.open.delete(hold)) return;
    const left = this.held(hold.workspaceId) - hold.amount;
    if (left > 0) this.heldByWs.set(hold.workspaceId, left);
    else this.heldByWs.delete(hold.workspaceId);
  }

  /** Microdollars held by this store's calls in flight. */
  held(workspaceId: string): number {
    return this.heldByWs.get(workspaceId) ?? 0;
  }

  /** Past RESERVATION_TTL_MS an unreleased hold stops counting; checked at most once a minute. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [h, deadline] of this.open) if (deadline <= now) this.release(h);
  }
}
