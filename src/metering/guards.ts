// The pipeline's admission control (inference/context.ts Guards): the record queue's back-pressure,
// credits (docs/contract.md "Rate limits, credits and budgets": platform-key calls on a workspace whose balance is not positive get 429 when
// credits are enforced; each admitted call holds its worst case against the balance, credit-holds.ts)
// and budget reservations, taken together (reservations.ts; one Redis script in shared mode); and the
// credit and budget headers on success.
import { ApiError } from "../http/errors";
import type { Admission, Admitted, CallContext, Guards } from "../inference/context";
import type { BudgetCounters } from "./budgets";
import type { BudgetPeriod } from "./periods";
import type { CreditService } from "./credits";
import type { RecordWriter } from "./record-writer";
import type { CreditAsk, Reservations, Reserved } from "./reservations";

export interface GuardDeps {
  credits: CreditService;
  /** Credit holds and budget reservations of calls in flight, taken together (memory, or Redis in shared mode). */
  reservations: Reservations;
  /** The budget headers. */
  budgets: BudgetCounters;
  writer: RecordWriter;
  enforceCredits: boolean;
  /** Told of each call a budget refuses, with the budget's period (the metrics). */
  onBudgetRefused?: (period: BudgetPeriod) => void;
}

const noCredit = () => new ApiError("insufficient_credits", "The workspace's credit balance is not positive; add credit to continue.");

/** Settling is fire-and-forget (a failure must not fail the call); a sync store returns nothing to wait for. */
function ignoreFailure(p: void | Promise<void>): void {
  if (p instanceof Promise) p.catch(() => {});
}

export function meteringGuards(d: GuardDeps): Guards {
  /** Calls admitted without a credit hold because a BYOK route may serve them: their platform routes are skipped. */
  const unheld = new WeakSet<CallContext>();
  /** A reservation made (or refused) → the admission that settles or releases it exactly once. */
  const admitted = (ctx: CallContext, r: Reserved, credit: CreditAsk | null): Admitted => {
    if (!r.ok) {
      if (r.code === "insufficient_credits") return { ok: false, error: noCredit() };
      d.onBudgetRefused?.(r.budget.period);
      return { ok: false, error: new ApiError("budget_exceeded", r.message) };
    }
    const { held } = r;
    if (credit && held.hold === null) unheld.add(ctx);
    let done = false;
    // The call's debit is applied (records.enqueue) before it settles, so releasing the hold then never
    // leaves a moment where neither counts.
    const admission: Admission = {
      settle(cost, served) {
        if (done) return;
        done = true;
        // The cost counts against the budgets of whoever served it (a fallback may have changed the
        // provider or the credential kind since the reservation); the holds are released as made.
        const ctx = { ...held.reservation.ctx, provider: served.provider, byok: served.byok };
        ignoreFailure(d.reservations.settle(held, cost, ctx));
      },
      release() {
        if (done) return;
        done = true;
        ignoreFailure(d.reservations.release(held));
      },
    };
    return { ok: true, admission };
  };
  return {
    // Synchronous with the memory stores (no promise per call), a promise with Redis.
    admit(ctx: CallContext, est) {
      if (d.writer.isFull()) {
        return {
          ok: false,
          error: new ApiError("service_unavailable", "Request recording is backed up (database slow or down); retry shortly.", {
            retryAfterSeconds: 1,
          }),
        };
      }
      // Only a call whose first candidate uses the platform key holds credit; when every candidate
      // needs it a refused hold refuses the call, otherwise the attempt loop skips the platform
      // candidates (platformAllowed).
      const credit: CreditAsk | null =
        !d.enforceCredits || est.byok ? null : { balance: d.credits.balance(ctx.workspaceId), required: !est.anyByok };
      const spend = { workspaceId: ctx.workspaceId, apiKeyId: ctx.apiKeyId, provider: est.provider, byok: est.byok };
      const r = d.reservations.reserve(spend, est.maxCostMicrodollars, credit);
      return r instanceof Promise ? r.then((v) => admitted(ctx, v, credit)) : admitted(ctx, r, credit);
    },
    platformAllowed(ctx) {
      // Per attempt, the call's own hold (if any) already counted at admission: only the balance is checked.
      return !d.enforceCredits || (!unheld.has(ctx) && d.credits.canSpend(ctx.workspaceId));
    },
    successHeaders(ctx, headers) {
      headers["X-Credits-Balance-Microdollars"] = String(d.credits.balance(ctx.workspaceId));
      const budget = d.budgets.headers(ctx.workspaceId, ctx.apiKeyId);
      if (!(budget instanceof Promise)) return void Object.assign(headers, budget);
      return budget.then((h) => void Object.assign(headers, h));
    },
  };
}
