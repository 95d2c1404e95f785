// POST /v1/messages/count_tokens: Anthropic's token counting, which Anthropic clients and Claude Code call.
// A model with an Anthropic route is counted by Anthropic: the body goes there as sent (the model ID
// aside, `gateway` and `extensions` removed) and its answer, errors included, comes back as it came.
// Any other model is estimated here (token-estimate.ts); the `x-switchyard-token-count` header says which.
// Counting is free at Anthropic: nothing is metered or charged, and no call record is written. Counts
// do not feed the routes' health either: a count is not an inference attempt.
import { Type } from "@sinclair/typebox";
import { inferencePost, type ReplySet, type RouteHandler } from "../../http/hot-routes";
import { authenticate, authOf } from "../../http/auth";
import { ApiError } from "../../http/errors";
import { withHeaders } from "../../http/reply-headers";
import { requestIdOf } from "../../http/edge";
import type { ModelEntry } from "../../catalog/types";
import { planRoute } from "../../routing/candidates";
import { parseModelSuffix } from "../../routing/model-suffix";
import type { Candidate } from "../../routing/types";
import { anthropicAdapter } from "../../providers/anthropic/adapter";
import { ANTHROPIC_VERSION, anthropicApiRoot } from "../../providers/anthropic/request";
import { redactSecrets, tryParseJson, withoutCredential } from "../../providers/upstream-errors";
import { isRecord } from "../../providers/content-parts";
import type { UpstreamError } from "../../providers/types";
import { UpstreamAbort } from "../../platform/upstream-abort";
import { transportError } from "../attempt";
import { credentialFor, hasCredential } from "../prepare";
import type { InferenceDeps } from "../context";
import type { InferenceRouteDeps } from "../interface-call";
import { firstFieldError, validationApiError } from "../responses/validation-error";
import { ESTIMATE_TOKENIZER, estimateInputTokens, o200kCounter } from "./token-estimate";

const PATH = "/v1/messages/count_tokens";

/** Only what the gateway reads; the rest of the body is Anthropic's to judge (it goes there as sent). */
export const CountTokensRequest = Type.Object({
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(Type.Unknown()),
});

export const TOKEN_COUNT_HEADER = "x-switchyard-token-count";
export const TOKENIZER_HEADER = "x-switchyard-tokenizer";

type Body = Record<string, unknown> & { model: string };

/** The provider's HTTP answer, or no answer at all (unreachable, timed out). */
type Counted =
  { ok: true; status: number; text: string; headers: Headers; error: UpstreamError | null } | { ok: false; error: UpstreamError };

function countTokensHandler(d: InferenceRouteDeps): RouteHandler {
  return async (request, body, set) => {
    // Checked before the body was read (the hot route's admission); app.handle's parse step did the same.
    const auth = authOf(request) ?? (await authenticate(d.keys, request.headers, [], { allowXApiKey: true }));
    const invalid = firstFieldError(CountTokensRequest, body);
    if (invalid) throw validationApiError(invalid);
    const b = body as Body;
    const deps = d.inference;
    const candidates = anthropicCandidates(deps, auth.workspaceId, resolveModel(deps, b.model), b.model);
    if (candidates.length > 0) return forward(deps, request, b, candidates, auth.workspaceId, set);
    const tokens = estimateInputTokens(b, await o200kCounter());
    Object.assign(set.headers, {
      "content-type": "application/json",
      "request-id": requestIdOf(request),
      [TOKEN_COUNT_HEADER]: "estimate",
      [TOKENIZER_HEADER]: ESTIMATE_TOKENIZER,
    });
    return JSON.stringify({ input_tokens: tokens });
  };
}

function resolveModel(deps: InferenceDeps, raw: string): ModelEntry {
  const model = deps.catalog.resolve(parseModelSuffix(raw).model) ?? deps.catalog.resolve(raw);
  if (!model) throw new ApiError("model_not_found", `The model '${raw}' does not exist.`, { param: "model" });
  return model;
}

/**
 * The model's Anthropic routes this workspace may send its prompt to, in the router's order: its routing
 * defaults (providers, data policy) and open circuits apply as to a call. Half-open routes are left out:
 * their one probe belongs to a real call. None (or no plan at all) means the count is estimated here.
 */
function anthropicCandidates(deps: InferenceDeps, workspaceId: string, model: ModelEntry, raw: string): Candidate[] {
  const plan = planRoute({
    models: [model],
    providers: deps.catalog.providers,
    request: { optimize: parseModelSuffix(raw).optimize },
    defaults: deps.routingDefaults.get(workspaceId),
    hasCredential: (p) => hasCredential(deps, workspaceId, p),
    health: deps.health,
    endpoint: "chat_completions",
    now: Date.now(),
  });
  if (!plan.ok) return [];
  return plan.candidates.filter((c) => c.provider.adapter === "anthropic" && c.circuit === "closed");
}

/** The body for a route: the client's, in its order, with the route's model ID and no gateway fields. */
function upstreamBody(body: Body, providerModelId: string): string {
  const out: Record<string, unknown> = {};
  for (const key in body) {
    if (key === "gateway" || key === "extensions") continue;
    out[key] = key === "model" ? providerModelId : body[key];
  }
  return JSON.stringify(out);
}

/** Each route in turn until one answers with anything but a retryable failure; the last word is sent. */
async function forward(
  deps: InferenceDeps,
  request: Request,
  body: Body,
  candidates: readonly Candidate[],
  workspaceId: string,
  set: ReplySet,
): Promise<Response> {
  let last: Counted | null = null;
  let provider = "";
  for (const c of candidates) {
    provider = c.provider.id;
    last = await countUpstream(
      deps,
      request,
      c,
      credentialFor(deps, workspaceId, provider).apiKey,
      upstreamBody(body, c.route.providerModelId),
    );
    if (last.ok && (last.error === null || !last.error.retryable)) break;
  }
  // A redirect is not the provider's answer to this body (redirects are not followed), and the gateway's
  // credential refused (401/403) is not the client's: telling it so would make it sign in again. Both fail
  // like no answer at all.
  if (!last!.ok || (last!.status >= 300 && last!.status < 400) || last!.error?.code === "auth_failed") {
    const error = last!.error!;
    throw new ApiError(error.code === "provider_timeout" ? "provider_timeout" : "provider_error", error.message, { provider });
  }
  const res = withHeaders(new Response(last!.text, { status: last!.status }), set.headers, {
    "content-type": last!.headers.get("content-type") ?? "application/json",
    // Anthropic's SDKs read the request id from `request-id`, as on /v1/messages.
    "request-id": requestIdOf(request),
    [TOKEN_COUNT_HEADER]: "provider",
  });
  const retryAfter = last!.error ? last!.headers.get("retry-after") : null;
  if (retryAfter) res.headers.set("retry-after", retryAfter);
  // Elysia copies a returned Response into a second one when `set` still has headers (interface-call.ts).
  set.headers = {};
  return res;
}

/** One count at one route, under the provider's timeouts, aborted if the client goes away (as attempt.ts sends). */
async function countUpstream(deps: InferenceDeps, client: Request, c: Candidate, apiKey: string | null, body: string): Promise<Counted> {
  const p = c.provider;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
    "anthropic-version": client.headers.get("anthropic-version") ?? ANTHROPIC_VERSION,
  };
  const beta = client.headers.get("anthropic-beta");
  if (beta) headers["anthropic-beta"] = beta;
  if (apiKey) headers["x-api-key"] = apiKey;
  const abort = new UpstreamAbort();
  const started = performance.now();
  const watch = deps.aborts.watch(client, abort, Math.min(p.connectTimeoutMs, p.timeoutMs));
  let headersIn = false;
  try {
    // Redirects are not followed: they would carry the credential elsewhere (upstream-errors.ts).
    const init: RequestInit = { method: "POST", headers, body, redirect: "manual" };
    const answer = await deps.send(`${anthropicApiRoot(p.baseUrl)}/v1/messages/count_tokens`, init, abort);
    headersIn = true;
    watch.until = started + p.timeoutMs;
    const text = await answer.text();
    if (answer.ok) return { ok: true, status: answer.status, text: withoutCredential(text, apiKey), headers: answer.headers, error: null };
    const error = anthropicAdapter.classifyError(answer.status, text, answer.headers, apiKey);
    return { ok: true, status: answer.status, text: scrubbedError(text, apiKey), headers: answer.headers, error };
  } catch (err) {
    const error = transportError(err, p.id);
    if (headersIn && error.code === "provider_timeout") error.wholeAttempt = true;
    return { ok: false, error };
  } finally {
    deps.aborts.release(watch);
  }
}

/**
 * The provider's error body as it came, except the credential: cut out exactly wherever it appears, and
 * in Anthropic's `error.message` anything that looks like a key masked too (providers quote part of a
 * rejected one). The body is re-encoded only when its message changed.
 */
function scrubbedError(text: string, apiKey: string | null): string {
  const cut = withoutCredential(text, apiKey);
  const parsed = tryParseJson(cut);
  if (!isRecord(parsed) || !isRecord(parsed.error) || typeof parsed.error.message !== "string") return cut;
  const message = redactSecrets(parsed.error.message);
  if (message === parsed.error.message) return cut;
  return JSON.stringify({ ...parsed, error: { ...parsed.error, message } });
}

export function countTokensRoutes(d: InferenceRouteDeps) {
  return inferencePost(
    { ...d, allowXApiKey: true },
    "messages-count-tokens",
    PATH,
    countTokensHandler(d),
    "Count a message's input tokens (Anthropic count_tokens-compatible; counted by an Anthropic route, else estimated: see x-switchyard-token-count)",
  );
}
