// Responses follow-ups on native routes: a response the provider stored (`store` not false) lives in
// the upstream account that made it, so a call naming it as `previous_response_id` is sent to that
// route with that credential, and nowhere else. The gateway remembers which route served each stored
// response (route-memory.ts); a follow-up whose route is unknown, expired or gone gets today's 400.
import type { Candidate } from "../../routing/types";
import type { CallContext, InferenceDeps } from "../context";
import type { AttemptPlan } from "../attempt";
import type { NativeCall, Prepared } from "../prepare";
import type { ServedRoute } from "./route-memory";
import { credentialOf, pinCandidates, sameCredential } from "./pin-route";

/** The response a native Responses call follows up on, if any. */
function previousResponseId(native: NativeCall | undefined): string | null {
  if (native?.request.wire !== "responses") return null;
  const id = native.request.body.previous_response_id;
  return typeof id === "string" && id !== "" ? id : null;
}

/** The route that served the response this call follows up on: undefined when it is not a follow-up. */
export function recallFollowUp(
  deps: InferenceDeps,
  ctx: CallContext,
  native: NativeCall | undefined,
): ServedRoute | null | undefined | Promise<ServedRoute | null> {
  const id = previousResponseId(native);
  return id === null ? undefined : deps.responseRoutes.recall(ctx.workspaceId, id, Date.now());
}

/** The plan cut to the remembered route, or the follow-up's 400 when it is out of reach. */
export function pinFollowUp(
  deps: InferenceDeps,
  ctx: CallContext,
  candidates: Candidate[],
  native: NativeCall,
  served: ServedRoute | null,
): Candidate[] {
  const refusal = native.untranslatable;
  const pinned = served
    ? pinCandidates(candidates, served, (s) =>
        sameCredential(s.credential, credentialOf(deps.byok.defaultKeyFor(ctx.workspaceId, s.providerId))),
      )
    : null;
  if (pinned) return pinned;
  // The translation refuses previous_response_id with the documented 400: the same answer here.
  if (refusal) throw refusal;
  return candidates;
}

/** After a native Responses attempt answered: remember its route for the response's follow-ups. */
export function rememberServed(deps: InferenceDeps, ctx: CallContext, prepared: Prepared, plan: AttemptPlan, responseId: unknown): void {
  const native = prepared.native;
  if (!plan.native || native?.wire !== "responses" || native.body.store === false || typeof responseId !== "string") return;
  const c = plan.candidate;
  const credential = plan.apiKeySource === "byok" ? credentialOf(deps.byok.defaultKeyFor(ctx.workspaceId, c.provider.id)) : "platform";
  void deps.responseRoutes.remember(
    ctx.workspaceId,
    responseId,
    { providerId: c.provider.id, providerModelId: c.route.providerModelId, routeKey: c.routeKey, credential },
    Date.now(),
  );
}
