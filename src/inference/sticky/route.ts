// Sticky routing in the pipeline (issue 54 item 6): before planning, the route that holds the
// conversation's prompt cache is looked up (the planner puts it first when every constraint allows it);
// after an attempt answered on a route whose cache read is cheaper than its input, the conversation is
// stuck to it. Nothing is hashed or looked up for a call none of whose routes has a cheap cache read.
import type { ModelEntry, RouteEntry } from "../../catalog/types";
import { parseModelSuffix } from "../../routing/model-suffix";
import type { Candidate } from "../../routing/types";
import type { CallContext, InferenceDeps } from "../context";
import type { IncomingCall } from "../prepare";
import { sessionKeyOf } from "./session-id";

/** The conversation a call continues (set on its context before planning) and the route it is stuck to. */
export interface StickyState {
  session: string;
  routeKey: string | undefined;
}

/** A route worth staying on: it reads a cached prefix for less than it charges for fresh input. */
export const cachesCheaply = (r: RouteEntry): boolean => r.cacheReadPrice !== null && r.cacheReadPrice < r.inputPrice;

/**
 * Sets `ctx.sticky` for a call some of whose routes cache cheaply: its session and the route it is
 * stuck to (`ctx.sticky.routeKey`, the planner's stickyRouteKey). A promise only when the shared store
 * must ask Redis (a session this instance has not seen): await it before planning.
 */
export function lookupSticky(deps: InferenceDeps, ctx: CallContext, call: IncomingCall): void | Promise<void> {
  const store = deps.sticky;
  if (!store || !anyCachesCheaply(deps, call)) return;
  const { workspaceId, headers } = ctx;
  const session = sessionKeyOf({ workspaceId, headers, native: call.native?.request, messages: call.request.messages });
  if (session === null) return;
  const found = store.lookup(session);
  if (!(found instanceof Promise)) {
    ctx.sticky = { session, routeKey: found };
    return;
  }
  return found.then((routeKey) => {
    ctx.sticky = { session, routeKey };
  });
}

/** The planner's `stickyRouteKey` for this call (after lookupSticky). */
export const stickyRouteFor = (ctx: CallContext): string | undefined => ctx.sticky?.routeKey;

/** After an attempt answered (a JSON body, or a stream's first content: the upstream has read the prompt). */
export function rememberSticky(deps: InferenceDeps, ctx: CallContext, c: Candidate): void {
  const s = ctx.sticky;
  if (s && deps.sticky && cachesCheaply(c.route)) deps.sticky.remember(s.session, c.routeKey);
}

/** Does any route of the models the call names cache cheaply? (An unknown model is prepareCall's 400.) */
function anyCachesCheaply(deps: InferenceDeps, call: IncomingCall): boolean {
  const gw = call.gateway?.models;
  if (gw === undefined) return call.request.model !== undefined && modelCachesCheaply(deps, call.request.model);
  for (const id of gw) if (modelCachesCheaply(deps, id)) return true;
  return false;
}

// Per catalog model, computed once (a reloaded catalog has new model objects).
const CHEAP_CACHE = new WeakMap<ModelEntry, boolean>();

function modelCachesCheaply(deps: InferenceDeps, id: string): boolean {
  // As prepareCall resolves it: a strategy suffix (`…:ttft`) first, when the ID has a colon at all.
  const model = id.includes(":")
    ? (deps.catalog.resolve(parseModelSuffix(id).model) ?? deps.catalog.resolve(id))
    : deps.catalog.resolve(id);
  if (model === undefined) return false;
  let cheap = CHEAP_CACHE.get(model);
  if (cheap === undefined) {
    cheap = model.routes.some(cachesCheaply);
    CHEAP_CACHE.set(model, cheap);
  }
  return cheap;
}
