// The pipeline's admission control (inference/context.ts Guards): the record queue's back-pressure,
// credits (CONTRACT §5: platform-key calls on a workspace whose balance is not positive get 429 when
// credits are enforced) and budget reservations; and the credit and budget headers on success.
import { ApiError } from "../http/errors";
import type { Admission, CallContext, Guards } from "../inference/context";
import type { BudgetCounters } from "./budgets";
import type { CreditService } from "./credits";
import type { RecordWriter } from "./record-writer";

export interface GuardDeps {
  credits: CreditService;
  budgets: BudgetCounters;
  writer: RecordWriter;
  enforceCredits: boolean;
}

export function meteringGuards(d: GuardDeps): Guards {
  return {
    async admit(ctx: CallContext, est) {
      if (d.writer.isFull()) {
        return {
          ok: false,
          error: new ApiError("no_provider_available", "Request recording is backed up (database slow or down); retry shortly."),
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
      const r = await d.budgets.reserve(
        { workspaceId: ctx.workspaceId, apiKeyId: ctx.apiKeyId, provider: est.provider, byok: est.byok },
        est.maxCostMicrodollars,
      );
      if (!r.ok) return { ok: false, error: new ApiError("budget_exceeded", r.message) };
      let done = false;
      const admission: Admission = {
        settle(cost, served) {
          if (done) return;
          done = true;
          // The cost counts against the budgets of whoever served it (a fallback may have changed the
          // provider or the credential kind since the reservation); the holds are released as made.
          const ctx = { ...r.reservation.ctx, provider: served.provider, byok: served.byok };
          void Promise.resolve(d.budgets.settle(r.reservation, cost, ctx)).catch(() => {});
        },
        release() {
          if (done) return;
          done = true;
          void Promise.resolve(d.budgets.release(r.reservation)).catch(() => {});
        },
      };
      return { ok: true, admission };
    },
    platformAllowed(ctx) {
      return !d.enforceCredits || d.credits.canSpend(ctx.workspaceId);
    },
    async successHeaders(ctx, headers) {
      headers["X-Credits-Balance-Microdollars"] = String(d.credits.balance(ctx.workspaceId));
      Object.assign(headers, await d.budgets.headers(ctx.workspaceId, ctx.apiKeyId));
    },
  };
}
