// The part every inference route shares: authenticate, validate the gateway fields, run.
import type { Endpoint } from "../catalog/types";
import type { ApiKeyCache } from "../auth/key-cache";
import { authenticate, authOf } from "../http/auth";
import { requestIdOf } from "../http/edge";
import { roundMs, serverTiming, withHeaders } from "../http/reply-headers";
import { firstFieldError, validationApiError } from "./responses/validation-error";
import { ExtensionsField, GatewayField, type Gateway } from "./gateway-schema";
import type { ChatRequest, Warning } from "../providers/types";
import type { InferenceDeps } from "./context";
import { callContext, runCall, type CallOutput } from "./call";
import type { NativeCall } from "./prepare";

export interface InferenceRouteDeps {
  inference: InferenceDeps;
  keys: ApiKeyCache;
  /** The largest body accepted, in bytes (config `max_request_body_mb.inference`). */
  maxBodyBytes: number;
}

export interface TranslatedCall {
  request: ChatRequest;
  warnings?: Warning[];
  gateway: unknown;
  extensions: unknown;
  stream: boolean;
  /** The route's own schema already validated gateway and extensions (chat completions). */
  validated?: boolean;
  /** The body in its own dialect, for the routes that speak it. */
  native?: NativeCall;
}

/** A body parsed by its interface's own schema and translated to chat → the call (responses, messages). */
export function translatedCall(
  body: { gateway?: unknown; stream?: boolean | null },
  chat: { request: ChatRequest; warnings?: Warning[] },
): TranslatedCall {
  return {
    request: chat.request,
    warnings: chat.warnings,
    gateway: body.gateway,
    extensions: (body as { extensions?: unknown }).extensions,
    stream: body.stream === true,
  };
}

/** Validates `gateway` and `extensions` for interfaces whose own schema accepts any object there. */
export function checkGatewayFields(
  gateway: unknown,
  extensions: unknown,
): { gateway?: Gateway; extensions?: Record<string, Record<string, unknown>> } {
  for (const [name, schema, value] of [
    ["gateway", GatewayField, gateway],
    ["extensions", ExtensionsField, extensions],
  ] as const) {
    if (value === undefined) continue;
    const err = firstFieldError(schema, value);
    if (!err) continue;
    // The error is relative to the field: its param, and the name its message quotes, get the field's name in front.
    const param = err.param ? `${name}${err.param.startsWith("[") ? "" : "."}${err.param}` : name;
    const quoted = err.param ? `'${err.param}'` : "The request body";
    throw validationApiError({ param, message: err.message.replace(quoted, `'${param}'`) });
  }
  return { gateway: gateway as Gateway | undefined, extensions: extensions as Record<string, Record<string, unknown>> | undefined };
}

export async function runInterfaceCall(
  d: InferenceRouteDeps,
  request: Request,
  endpoint: Endpoint | "messages",
  translate: () => TranslatedCall,
  opts: { allowXApiKey?: boolean } = {},
): Promise<{ out: CallOutput; headers: Record<string, string>; requestId: string; model: string }> {
  // The gateway's clock starts with the body in hand: its upload was the client's time.
  const startedAt = performance.now();
  // Checked by the edge before the body was read (authOf); a key the cache knows is answered without a promise: no await (and its resumption) for it.
  const authed = authOf(request) ?? authenticate(d.keys, request.headers, [], opts);
  const auth = authed instanceof Promise ? await authed : authed;
  const headers: Record<string, string> = {};
  const t = translate();
  const { gateway, extensions } = t.validated
    ? { gateway: t.gateway as Gateway | undefined, extensions: t.extensions as Record<string, Record<string, unknown>> | undefined }
    : checkGatewayFields(t.gateway, t.extensions);
  const ctx = callContext(
    { requestId: requestIdOf(request), workspaceId: auth.workspaceId, apiKeyId: auth.key.id, endpoint, request },
    gateway?.metadata,
  );
  const model = t.request.model;
  // Without a model (gateway.models chooses) the empty field is dropped; the common case copies nothing.
  const req = model ? t.request : withoutModel(t.request);
  const out = await runCall(
    d.inference,
    ctx,
    { request: req, gateway, extensions, warnings: t.warnings, native: t.native },
    endpoint === "messages" ? "chat_completions" : endpoint,
    t.stream,
  );
  for (const name in out.headers) headers[name] = out.headers[name]!;
  headers["x-request-id"] = ctx.requestId;
  headers["server-timing"] = timed(out, startedAt);
  return { out, headers, requestId: ctx.requestId, model: model || gateway?.models?.[0] || "" };
}

/**
 * The Server-Timing value, with the gateway's own time put in routing_metadata: a JSON answer's until it
 * is built (its serialisation aside); a stream's until its head, which its first write to the client
 * then replaces in the final routing_metadata (committed-stream.ts).
 */
function timed(out: CallOutput, startedAt: number): string {
  const elapsed = performance.now() - startedAt;
  if (out.kind === "json") {
    const upstreamMs = out.result.upstreamMs ?? 0;
    out.result.routing.gateway_overhead_ms = roundMs(elapsed - upstreamMs);
    return serverTiming(elapsed - upstreamMs, upstreamMs);
  }
  const t = out.open.timing;
  t.startedAt = startedAt;
  t.overheadMs = elapsed - t.upstreamMs;
  return serverTiming(t.overheadMs, t.upstreamMs);
}

function withoutModel(r: ChatRequest): ChatRequest {
  const { model: _, ...rest } = r;
  return rest as ChatRequest;
}

/**
 * A JSON answer as a string with its headers on Elysia's `set`: Elysia then builds the one Response.
 * (Returning a Response of our own makes Elysia copy it into a second one to merge headers.)
 */
export function jsonReply(set: { headers: Record<string, unknown> }, headers: Record<string, string>, body: unknown): string {
  Object.assign(set.headers, headers);
  set.headers["content-type"] = "application/json";
  return JSON.stringify(body);
}

/** A JSON answer already in text (a native answer): sent as it is. */
export function textReply(set: { headers: Record<string, unknown> }, headers: Record<string, string>, text: string): string {
  Object.assign(set.headers, headers);
  set.headers["content-type"] = "application/json";
  return text;
}

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" };

/**
 * An SSE answer: the one Response, carrying the headers already on Elysia's `set` (request id, rate
 * limits) with the call's own. `set.headers` is left empty, because Elysia copies a returned Response
 * into a second one (new Response + header merge) whenever `set` has headers: a measurable share of a
 * stream's CPU in the profile (bench/profile.ts --stream).
 */
export function streamReply(
  set: { headers: Record<string, unknown> },
  headers: Record<string, string>,
  body: ReadableStream<Uint8Array>,
): Response {
  const res = withHeaders(new Response(body), set.headers, headers, SSE_HEADERS);
  set.headers = {};
  return res;
}
