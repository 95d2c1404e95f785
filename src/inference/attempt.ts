// One upstream attempt: build the provider request, send it with its timeouts, and classify the
// outcome as a value. Nothing from the client can change the URL, the credential or auth headers:
// they come from the catalog and the credential store only (the adapter builds them).
import type { Candidate } from "../routing/types";
import type { BuiltRequest, ChatRequest, ProviderAdapter, UpstreamError, UpstreamTarget, Warning } from "../providers/types";
import { adapterForRoute, nativeAdapterFor } from "../providers/registry";
import type { InferenceDeps } from "./context";
import { credentialFor, type Prepared } from "./prepare";
import type { UpstreamAbort } from "../platform/upstream-abort";
import type { UpstreamAnswer } from "../platform/upstream-answer";
import type { ClientSide } from "../platform/abort-sweeper";
import { withoutPricedFields } from "./priced-fields";

export interface AttemptPlan {
  candidate: Candidate;
  adapter: ProviderAdapter;
  target: UpstreamTarget;
  apiKeySource: "byok" | "platform";
  url: string;
  init: RequestInit;
  warnings: Warning[];
  /** The client's body goes as it is (the route speaks its dialect): answers and events come back as sent. */
  native: boolean;
}

export function planAttempt(
  deps: InferenceDeps,
  workspaceId: string,
  prepared: Prepared,
  candidate: Candidate,
  stream: boolean,
  /** The client's interface: a /v1/responses call may use a provider's native Responses API. */
  endpoint?: string,
): AttemptPlan {
  const provider = candidate.provider;
  const cred = credentialFor(deps, workspaceId, provider.id, candidate.keySource);
  const native = prepared.native;
  const nativeAdapter = native ? nativeAdapterFor(provider, candidate.route, native.wire) : null;
  // The platform pays the provider: nothing priced above the catalog's standard tier goes upstream.
  const sent = nativeAdapter ? (native!.body as ChatRequest) : prepared.request;
  const unpriced = cred.source === "platform" ? withoutPricedFields(sent, prepared.extensions[provider.id]) : null;
  const target: UpstreamTarget = {
    providerId: provider.id,
    adapter: provider.adapter,
    baseUrl: provider.baseUrl,
    apiKey: cred.apiKey,
    providerModelId: candidate.route.providerModelId,
    extensions: unpriced ? unpriced.extensions : prepared.extensions[provider.id],
    maxOutputTokens: candidate.route.maxOutputTokens,
    chatReasoning: provider.chatReasoning,
    cacheControl: provider.cacheControl === true,
  };
  let adapter: ProviderAdapter;
  let built: BuiltRequest;
  if (nativeAdapter) {
    adapter = nativeAdapter;
    built = nativeAdapter.buildNative(unpriced ? { ...native!, body: unpriced.request } : native!, target, stream);
  } else {
    adapter = adapterForRoute(provider, candidate.route, endpoint);
    const request = unpriced?.request ?? prepared.request;
    // Adapters read `stream === true`; the body is copied only when that answer would change.
    const req = (request.stream === true) === stream ? request : { ...request, stream };
    built = adapter.buildRequest(req, target);
  }
  return {
    candidate,
    adapter,
    target,
    apiKeySource: cred.source,
    url: built.url,
    // Redirects are not followed (they would carry the credential elsewhere): upstream-errors.ts.
    init: { method: "POST", headers: built.headers, body: built.body, redirect: "manual" },
    warnings: attemptWarnings(unpriced?.warnings, nativeAdapter ? native!.warnings : undefined, built.warnings),
    native: nativeAdapter !== null,
  };
}

export type SendOutcome =
  { ok: true; response: UpstreamAnswer; text: string | null } | { ok: false; error: UpstreamError; cancelled: boolean };

export interface SendLimits {
  /**
   * Until the response headers arrive (the connect timeout), watched by the shared AbortSweeper with the
   * client's departure. Absent when the caller watches both itself (a stream's session: stream-session.ts).
   */
  headersMs?: number;
  /** With readBody: until the whole body has arrived (a non-streaming attempt's `timeout_ms`, docs/contract.md "Upstreams, errors and timeouts"). */
  totalMs?: number;
  readBody: boolean;
}

/**
 * Sends the request under its connect timeout (and, reading the body, the whole-attempt timeout); a
 * client that goes away aborts it too. Both are watched by the shared AbortSweeper, unless the caller
 * watches them (no headersMs).
 */
export async function send(
  deps: InferenceDeps,
  plan: AttemptPlan,
  /** The call's context (its signal is read only by the sweeper after its grace, or on failure). */
  client: ClientSide,
  upstreamAbort: UpstreamAbort,
  limits: SendLimits,
): Promise<SendOutcome> {
  const started = performance.now();
  const watch = limits.headersMs === undefined ? null : deps.aborts.watch(client, upstreamAbort, limits.headersMs);
  let headersIn = false;
  try {
    const response = await deps.send(plan.url, plan.init, upstreamAbort);
    headersIn = true;
    // Headers are in: from here the whole-attempt limit applies, if there is one.
    if (watch !== null) {
      if (limits.totalMs !== undefined) watch.until = started + limits.totalMs;
      else deps.aborts.release(watch);
    }
    if (response.ok) return { ok: true, response, text: limits.readBody ? await response.text() : null };
    const text = await response.text().catch(() => "");
    const error = plan.adapter.classifyError(response.status, text, response.headers, plan.target.apiKey);
    return { ok: false, error, cancelled: false };
  } catch (err) {
    const error = transportError(err, plan.candidate.provider.id);
    // After the headers only the whole-attempt limit is left to fire: the request's own length may be why.
    if (headersIn && error.code === "provider_timeout") error.wholeAttempt = true;
    return { ok: false, error, cancelled: client.signal.aborted };
  } finally {
    if (watch !== null) deps.aborts.release(watch);
  }
}

export function transportError(err: unknown, providerId: string): UpstreamError {
  const name = (err as { name?: string } | null)?.name;
  if (name === "TimeoutError" || (err as { message?: string })?.message === "timeout") {
    return { code: "provider_timeout", status: 0, retryable: true, message: `Provider '${providerId}' did not answer in time.` };
  }
  return { code: "provider_error", status: 0, retryable: true, message: `Could not reach provider '${providerId}'.` };
}

/** The attempt's warnings: the pricing cut's, the native body's, the adapter's (no copy when only the last has any). */
function attemptWarnings(unpriced: Warning[] | undefined, native: Warning[] | undefined, built: Warning[]): Warning[] {
  if (!unpriced?.length && !native?.length) return built;
  return [...(unpriced ?? []), ...(native ?? []), ...built];
}
