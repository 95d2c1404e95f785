// A follow-up (`previous_response_id`) must go to the route and credential that created the response:
// only that upstream account holds it, so there is no fallback to other routes. Pure decisions; the
// pipeline supplies the plan's candidates and the credential it would use now.
import type { Candidate } from "../../routing/types";
import type { RouteCredential, ServedRoute } from "./route-memory";

/** The credential identity of what credentialFor picks: the workspace's default BYOK key, else the platform's. */
export function credentialOf(defaultByokKey: { byokKeyId: string } | null): RouteCredential {
  return defaultByokKey ? { byokKeyId: defaultByokKey.byokKeyId } : "platform";
}

export function sameCredential(a: RouteCredential, b: RouteCredential): boolean {
  if (a === "platform" || b === "platform") return a === b;
  return a.byokKeyId === b.byokKeyId;
}

/**
 * The plan restricted to the route that served the response, or null when that route is no longer
 * among the eligible candidates or `stillValid` says its credential changed (the BYOK key was deleted,
 * disabled or replaced as default, or one now stands where the platform key served): the response is
 * then out of reach and the caller answers the `previous_response_id` 400.
 */
export function pinCandidates(
  candidates: readonly Candidate[],
  served: ServedRoute,
  stillValid: (served: ServedRoute) => boolean,
): Candidate[] | null {
  const route = candidates.find(
    (c) => c.routeKey === served.routeKey && c.provider.id === served.providerId && c.route.providerModelId === served.providerModelId,
  );
  if (!route || !stillValid(served)) return null;
  return [route];
}
