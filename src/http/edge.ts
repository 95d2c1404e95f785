// The edge hooks shared by every route: request id, the error envelope, one JSON log line per request.
import { Elysia } from "elysia";
import { ApiError, errorResponse } from "./errors";
import { requestIdFrom } from "../platform/ids";
import { plainWording, schemaApiError } from "./schema-error";
import { refuseNulParams } from "./body";
import type { Logger } from "../platform/logger";
import { traceIdOf } from "../observability/tracing/trace-tag";

// The request's ID and start time travel on the Request object itself, under symbols: a WeakMap keyed by
// every request grows between collections and was ~3 % of the gateway's CPU in profiles.
const ID = Symbol("switchyard.requestId");
/** Start time, kept only when the request log line is written (info level). */
const STARTED = Symbol("switchyard.started");
type Tagged = Request & { [ID]?: string; [STARTED]?: number };

export function requestIdOf(request: Request): string {
  return (request as Tagged)[ID] ?? "unknown";
}

interface ValidationLike {
  all?: { path?: string; message?: string; summary?: string }[];
  valueError?: { path?: string; message?: string };
}

/** Renders Elysia's own validation failures as our 400 invalid_parameter. */
function validationError(error: ValidationLike): ApiError {
  const first = error.valueError ?? error.all?.[0];
  return schemaApiError({ path: first?.path ?? "", message: first?.message ?? "Invalid value" }, plainWording);
}

export type ErrorRenderer = (err: ApiError, request: Request, requestId: string) => Response | undefined;

/**
 * The edge's steps as plain functions: the Elysia hooks below run them, and so do the hot routes
 * (hot-routes.ts), which serve the inference POSTs without Elysia's per-request composition.
 */
export interface EdgeSteps {
  /** Gives the request its ID (the client's X-Request-ID when plain, else a new one) and returns it. */
  tag(request: Request): string;
  /** Any failure → the error response (our envelope, or a route's own shape through the renderers). */
  failure(code: unknown, error: unknown, request: Request, path: string): Response;
  /** One JSON log line per request at the info level (nothing below it). */
  log(request: Request, path: string, status: number): void;
  /** Whether log writes anything (below info, no after-response hook is installed). */
  timed: boolean;
}

export function edgeSteps(logger: Logger, renderers: ErrorRenderer[] = []): EdgeSteps {
  const render = (err: ApiError, request: Request): Response => {
    const id = requestIdOf(request);
    if (err.extra.native) return nativeErrorResponse(err, err.extra.native, id);
    for (const r of renderers) {
      const res = r(err, request, id);
      if (res) return res;
    }
    return errorResponse(err, id);
  };
  const toApiError = (code: unknown, error: unknown, request: Request, path: string): ApiError => {
    if (error instanceof ApiError) return error;
    if (code === "NOT_FOUND") return new ApiError("not_found", `No route for ${request.method} ${path}.`);
    if (code === "VALIDATION") return validationError(error as ValidationLike);
    if (code === "PARSE") {
      // Elysia wraps what a parse hook throws (the key check, the body limit: http/body.ts) as its cause.
      const cause = (error as { cause?: unknown } | null)?.cause;
      return cause instanceof ApiError ? cause : new ApiError("invalid_request", "The request body is not valid JSON.");
    }
    logger.error("unhandled error", {
      request_id: requestIdOf(request),
      path,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    return new ApiError("internal_error", "Internal error. Quote the request id when reporting it.");
  };
  const timed = logger.enabled("info");
  return {
    timed,
    tag(request) {
      const id = requestIdFrom(request.headers.get("x-request-id"));
      (request as Tagged)[ID] = id;
      if (timed) (request as Tagged)[STARTED] = performance.now();
      return id;
    },
    failure: (code, error, request, path) => render(toApiError(code, error, request, path), request),
    log(request, path, status) {
      const t0 = (request as Tagged)[STARTED];
      if (t0 === undefined) return;
      logger.info("request", {
        request_id: requestIdOf(request),
        // Undefined (and so left out of the line) unless tracing is on.
        trace_id: traceIdOf(request),
        method: request.method,
        path,
        status,
        duration_ms: Math.round((performance.now() - t0) * 100) / 100,
      });
    },
  };
}

/** A native call's failure as the provider answered it: its status and body, with the gateway's request id. */
function nativeErrorResponse(err: ApiError, native: { status: number; body: string }, requestId: string): Response {
  const headers: Record<string, string> = { "content-type": "application/json", "x-request-id": requestId };
  if (err.extra.retryAfterSeconds !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(err.extra.retryAfterSeconds)));
  return new Response(native.body, { status: native.status, headers });
}

export function edge(steps: EdgeSteps) {
  const app = new Elysia({ name: "edge" })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = steps.tag(request);
    })
    // Every route's query and path parameters: no NUL (a cue in the URL first, so the common case costs a search).
    .onTransform({ as: "global" }, ({ request, params, query }) => {
      refuseNulParams(request.url, (params ?? {}) as Record<string, string | undefined>, (query ?? {}) as Record<string, unknown>);
    })
    .onError({ as: "global" }, ({ code, error, request, path, set }) => {
      const res = steps.failure(code, error, request, path);
      set.status = res.status;
      return res;
    });
  // Elysia runs an after-response hook in a task of its own per request (setImmediate): below the
  // info level there is no line to write, so the hook is not installed at all.
  if (!steps.timed) return app;
  return app.onAfterResponse({ as: "global" }, ({ request, set, path }) => {
    steps.log(request, path, typeof set.status === "number" ? set.status : 200);
  });
}
