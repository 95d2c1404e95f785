// The pipeline's admission control (inference/context.ts Guards): the record queue's back-pressure,
// credits (CONTRACT §5: platform-key calls on a workspace whose balance is not positive get 429 when
// credits are enforced) and budget reservations; and the credit and budget headers on success.
import { ApiError } from "../http/errors";
import type { Admission, Admitted, CallContext, Guards } from "../inference/context";
import type { BudgetCounters, ReserveResult } from "./budgets";
import type { CreditService } from "./credits";
import type { RecordWriter } from "./record-writer";

export interface GuardDeps {
  credits: CreditService;
  budgets: BudgetCounters;
  writer: RecordWriter;
  enforceCredits: boolean;
}

/** Settling is fire-and-forget (a failure must not fail the call); a sync store returns nothing to wait for. */
function ignoreFailure(p: void | Promise<void>): void {
  if (p instanceof Promise) p.catch(() => {});
}

export function meteringGuards(d: GuardDeps): Guards {
  /** A reservation made (or refused) → the admission that settles or releases it exactly once. */
  const admitted = (r: ReserveResult): Admitted => {
    if (!r.ok) return { ok: false, error: new ApiError("budget_exceeded", r.message) };
    let done = false;
    const admission: Admission = {
      settle(cost, served) {
        if (done) return;
        done = true;
        // The cost counts against the budgets of whoever served it (a fallback may have changed the
        // provider or the credential kind since the reservation); the holds are released as made.
        const ctx = { ...r.reservation.ctx, provider: served.provider, byok: served.byok };
        ignoreFailure(d.budgets.settle(r.reservation, cost, ctx));
      },
      release() {
        if (done) return;
        done = true;
        ignoreFailure(d.budgets.release(r.reservation));
      },
    };
    return { ok: true, admission };
  };
  return {
    // Synchronous with the memory budget store (no promise per call), a promise with Redis.
    admit(ctx: CallContext, est) {
      if (d.writer.isFull()) {
        return {
          ok: false,
          error: new ApiError("service_unavailable", "Request recording is backed up (database slow or down); retry shortly.", {
            retryAfterSeconds: 1,
          }),
        };
      }
      // Refused up front only when every candidate needs platform credit; otherwise the attempt loop
      // skips the platform candidates (platformAllowed).
      if (d.enforceCredits && !est.anyByok && !d.credits.canSpend(ctx.workspaceId)) {
        return {
          ok: false,
          error: new ApiError("insufficient_credits", "The workspace's credit balance is not positive; add credit to continue."),
        };
      }
      const reserved = d.budgets.reserve(
        { workspaceId: ctx.workspaceId, apiKeyId: ctx.apiKeyId, provider: est.provider, byok: est.byok },
        est.maxCostMicrodollars,
      );
      return reserved instanceof Promise ? reserved.then(admitted) : admitted(reserved);
    },
    platformAllowed(ctx) {
      return !d.enforceCredits || d.credits.canSpend(ctx.workspaceId);
    },
    successHeaders(ctx, headers) {
      headers["X-Credits-Balance-Microdollars"] = String(d.credits.balance(ctx.workspaceId));
      const budget = d.budgets.headers(ctx.workspaceId, ctx.apiKeyId);
      if (!(budget instanceof Promise)) return void Object.assign(headers, budget);
      return budget.then((h) => void Object.assign(headers, h));
    },
  };
}
