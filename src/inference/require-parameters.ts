// `require_parameters`: a route qualifies only when an attempt on it would send every parameter the
// client used. The attempt is built exactly as the attempt loop would build it (planAttempt), so the
// answer follows the adapters' own warnings instead of a second list of what each one supports.
import type { Candidate } from "../routing/types";
import type { InferenceDeps } from "./context";
import type { Prepared } from "./prepare";
import { planAttempt } from "./attempt";

/**
 * True when an attempt on this candidate would drop (or clamp) nothing: its adapter and the platform's
 * priced-field rule warn about nothing, and, when the body is translated rather than sent in the
 * client's own dialect, the ingress translation dropped nothing either (`prepared.warnings`).
 */
export function carriesEveryParameter(
  deps: InferenceDeps,
  workspaceId: string,
  prepared: Prepared,
  candidate: Candidate,
  stream: boolean,
  endpoint: string,
): boolean {
  const plan = planAttempt(deps, workspaceId, prepared, candidate, stream, endpoint);
  if (plan.warnings.length > 0) return false;
  return plan.native || prepared.warnings.length === 0;
}
