// From a validated request body to an attempt plan: gateway fields checked, models resolved, routes
// planned. Shared by chat, responses and messages (they all arrive here as a ChatRequest).
import type { Endpoint, ModelEntry } from "../catalog/types";
import { ApiError } from "../http/errors";
import { parseModelSuffix } from "../routing/model-suffix";
import { planRoute } from "../routing/candidates";
import type { Candidate, CredentialChoice, Optimize } from "../routing/types";
import type { ChatRequest, NativeRequest, Warning } from "../providers/types";
import { nativeAdapterFor } from "../providers/registry";
import type { ServedRoute } from "./responses/route-memory";
import { pinFollowUp } from "./responses/follow-up";
import type { Gateway } from "./gateway-schema";
import { carriesEveryParameter } from "./require-parameters";
import { requestRouting } from "./routing-options";
import { stickyRouteFor } from "./sticky/route";
import type { CallContext, InferenceDeps } from "./context";

export interface Prepared {
  request: ChatRequest;
  /** The model as the client named it (first of gateway.models when several). */
  requestedModel: string;
  candidates: Candidate[];
  strategy: Optimize;
  extensions: Record<string, Record<string, unknown>>;
  /** What the interface's translation dropped (reported in routing_metadata.warnings of translated attempts). */
  warnings: Warning[];
  /** The client's body in its own dialect: sent as it is to the routes that speak it (native.ts). */
  native?: NativeRequest;
}

export interface IncomingCall {
  /** The body without `gateway` and `extensions`. */
  request: Omit<ChatRequest, "model"> & { model?: string };
  gateway?: Gateway;
  extensions?: Record<string, Record<string, unknown>>;
  warnings?: Warning[];
  native?: NativeCall;
}

/** A call in a dialect some routes speak natively; `untranslatable` when it cannot go to the others. */
export interface NativeCall {
  request: NativeRequest;
  /** Why the body cannot be translated (today's validation error): only native routes may serve it. */
  untranslatable?: ApiError;
}

function resolveModels(deps: InferenceDeps, ids: string[], paramBase: string): { models: ModelEntry[]; optimize?: Optimize } {
  let optimize: Optimize | undefined;
  const models = ids.map((raw, i) => {
    const parsed = parseModelSuffix(raw);
    if (parsed.optimize) optimize ??= parsed.optimize;
    const model = deps.catalog.resolve(parsed.model) ?? deps.catalog.resolve(raw);
    if (!model) {
      throw new ApiError("model_not_found", `The model '${raw}' does not exist.`, {
        param: ids.length > 1 || paramBase !== "model" ? `${paramBase}[${i}]` : "model",
      });
    }
    return model;
  });
  return { models, optimize };
}

export function prepareCall(
  deps: InferenceDeps,
  ctx: CallContext,
  call: IncomingCall,
  endpoint: Endpoint,
  /** For a Responses follow-up, the route that served the earlier response (null: unknown); undefined otherwise. */
  followUp?: ServedRoute | null,
): Prepared {
  const gw = call.gateway;
  if (call.request.model !== undefined && gw?.models) {
    throw new ApiError("invalid_parameter", "Give either 'model' or 'gateway.models', not both.", { param: "model" });
  }
  const ids = gw?.models ?? (call.request.model !== undefined ? [call.request.model] : []);
  if (ids.length === 0) throw new ApiError("invalid_parameter", "'model' is required.", { param: "model" });
  const { models, optimize } = resolveModels(deps, ids, gw?.models ? "gateway.models" : "model");
  const routing = requestRouting(gw?.routing, optimize, deps.catalog.providers);
  const defaults = deps.routingDefaults.get(ctx.workspaceId);
  const plan = planRoute({
    models,
    providers: deps.catalog.providers,
    request: routing,
    defaults,
    credential: (p, choice) => credentialSource(deps, ctx.workspaceId, p, choice),
    health: deps.health,
    endpoint,
    now: Date.now(),
    stickyRouteKey: stickyRouteFor(ctx),
  });
  if (!plan.ok) {
    throw plan.code === "no_eligible_route"
      ? new ApiError("no_eligible_route", plan.message, { param: plan.param })
      : new ApiError("no_provider_available", plan.message);
  }
  const native = call.native;
  let candidates = plan.candidates;
  if (native?.untranslatable) {
    // Only the routes that speak the client's dialect can take a body the translation refuses.
    candidates = candidates.filter((c) => nativeAdapterFor(c.provider, c.route, native.request.wire) !== null);
    if (candidates.length === 0) throw native.untranslatable;
  }
  if (followUp !== undefined) candidates = pinFollowUp(deps, ctx, candidates, native!, followUp);
  const prepared: Prepared = {
    // The body is copied only when the model field changes (gateway.models chose it).
    request: (call.request.model === ids[0] ? call.request : { ...call.request, model: ids[0]! }) as ChatRequest,
    requestedModel: ids[0]!,
    candidates,
    strategy: plan.strategy,
    extensions: call.extensions ?? {},
    warnings: call.warnings ?? [],
    native: native?.request,
  };
  if (routing.requireParameters ?? defaults?.require_parameters) {
    prepared.candidates = candidates.filter((c) =>
      carriesEveryParameter(deps, ctx.workspaceId, prepared, c, call.request.stream === true, endpoint),
    );
    if (prepared.candidates.length === 0) {
      const param = routing.requireParameters !== undefined ? "gateway.routing.require_parameters" : "require_parameters";
      throw new ApiError(
        "no_eligible_route",
        "No route of the requested model(s) carries every parameter of the request (require_parameters).",
        {
          param,
        },
      );
    }
  }
  return prepared;
}

export function hasCredential(deps: InferenceDeps, workspaceId: string, providerId: string): boolean {
  return credentialSource(deps, workspaceId, providerId, "any") !== null;
}

/** Whose credential would pay under `choice` ("any": the workspace's BYOK default first); local providers need none. */
export function credentialSource(
  deps: InferenceDeps,
  workspaceId: string,
  providerId: string,
  choice: CredentialChoice,
): "byok" | "platform" | null {
  const p = deps.catalog.providers.get(providerId);
  if (!p) return null;
  if (choice !== "platform" && deps.byok.defaultKeyFor(workspaceId, providerId) !== null) return "byok";
  if (choice === "byok") return null;
  return p.local || p.platformKey !== null ? "platform" : null;
}

/**
 * The credential for this provider and workspace: BYOK default first, then the platform key; `source`
 * "platform" (the planner's choice under only_platform) skips the BYOK key.
 */
export function credentialFor(
  deps: InferenceDeps,
  workspaceId: string,
  providerId: string,
  source?: "byok" | "platform",
): { apiKey: string | null; source: "byok" | "platform" } {
  const byok = source === "platform" ? null : deps.byok.defaultKeyFor(workspaceId, providerId);
  if (byok) return { apiKey: byok.secret, source: "byok" };
  return { apiKey: deps.catalog.providers.get(providerId)?.platformKey ?? null, source: "platform" };
}
