// One local Bun.serve (port 0) that plays any number of upstream providers in their real wire
// formats, for integration tests. Never a real provider.
//
// Path scheme: every provider gets a prefix `/p/<name>`; `baseUrl(format, name)` gives the base URL
// to put in the provider config, following the catalog's convention (docs/configuration.md):
//   openai    `${url}/p/<name>/v1`  → POST …/v1/chat/completions, GET …/v1/models,
//                                      POST …/v1/responses (route "responses": OpenAI's Responses API)
//   anthropic `${url}/p/<name>`     → POST …/v1/messages,         GET …/v1/models (told apart from
//                                      OpenAI's by the anthropic-version / x-api-key headers),
//                                      POST …/v1/messages/count_tokens (route "count_tokens")
//   gemini    `${url}/p/<name>`     → POST …/v1beta/models/<m>:generateContent | :streamGenerateContent?alt=sse,
//                                      GET …/v1beta/models
// Without a prefix the same paths answer as provider "default".
//
// Behaviour per request: the newest script whose matcher fits; else a synthesized reply
// ("Hello from the mock upstream.", stream or JSON as the request asked). `apiKeys` makes a provider
// answer 401/400 in its own error shape to any other key (for BYOK validation tests).
import type { Server } from "bun";
import {
  errorBody,
  fixtureSseEvents,
  frameSse,
  modelsBody,
  readFixture,
  replyJson,
  replySse,
  type ReplySpec,
  type SseDialect,
  type WireFormat,
} from "./mock-upstream-wire";
import { responsesFirstEvent, responsesReplyJson, responsesReplySse } from "./mock-upstream-responses";

export type { MockToolCall, MockUsage, ReplySpec, SseDialect, WireFormat } from "./mock-upstream-wire";

export interface RecordedRequest {
  method: string;
  path: string;
  search: string;
  /** The `<name>` of `/p/<name>/…` ("default" without a prefix). */
  provider: string;
  format: WireFormat | null;
  /** "responses": POST …/v1/responses of an openai-format provider (OpenAI's Responses API). */
  route: "chat" | "responses" | "models" | "count_tokens" | "unknown";
  model: string | null;
  stream: boolean;
  headers: Record<string, string>;
  body: unknown;
  rawBody: string;
  receivedAt: number;
  /** The client went away before the answer finished (abort propagated upstream). */
  aborted: boolean;
}

export type Matcher =
  | { provider?: string; format?: WireFormat; route?: RecordedRequest["route"]; model?: string; stream?: boolean }
  | ((req: RecordedRequest) => boolean);

interface Timing {
  /** Wait before the status line (first byte). */
  delayMs?: number;
  /** The first request this behaviour answers waits for this promise first (later ones do not): a call held in flight until the test lets it go. */
  holdFirst?: Promise<void>;
  /** Wait between stream events. */
  gapMs?: number;
  /** Send this many stream events, then stall until the client aborts or the mock stops. */
  hangAfterChunks?: number;
  headers?: Record<string, string>;
}

export type Behaviour =
  | ({ kind: "reply" } & ReplySpec & Timing)
  /** `<format>/<name>.json` answers that body; `<format>/<name>.chunks.txt` replays the stream. */
  | ({ kind: "fixture"; file: string; status?: number } & Timing)
  /** Raw wire text, each string written as one network chunk. */
  | ({ kind: "sse"; chunks: string[] } & Timing)
  /** Status with `body`, or the provider's own error shape around `message`. */
  | ({ kind: "error"; status: number; message?: string; body?: unknown } & Timing)
  /** A 200 event stream whose second event is not JSON. */
  | ({ kind: "malformed" } & Timing)
  /** Never answers (until the client aborts or the mock stops). */
  | { kind: "hang" };

export interface MockUpstream {
  url: string;
  port: number;
  requests: RecordedRequest[];
  baseUrl(format: WireFormat, provider?: string): string;
  /** Later scripts win. An array is played in order, its last element repeating. */
  setScript(matcher: Matcher, behaviour: Behaviour | Behaviour[]): void;
  /** Forgets scripts and recorded requests. */
  reset(): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  stop(): Promise<void>;
}

interface Script {
  matcher: Matcher;
  behaviours: Behaviour[];
  used: number;
}

export interface MockUpstreamOptions {
  /** provider name → the only key it accepts (others get the provider's 401; Gemini's 400 API_KEY_INVALID). */
  apiKeys?: Record<string, string>;
}

export async function startMockUpstream(opts: MockUpstreamOptions = {}): Promise<MockUpstream> {
  const requests: RecordedRequest[] = [];
  let scripts: Script[] = [];
  const stopped = Promise.withResolvers<void>();

  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const recorded = await record(request);
      requests.push(recorded);
      request.signal.addEventListener("abort", () => (recorded.aborted = true), { once: true });
      const until = Promise.race([stopped.promise, abortPromise(request.signal)]);
      const rejected = authFailure(recorded, opts.apiKeys);
      if (rejected) return rejected;
      const behaviour = pick(scripts, recorded) ?? defaultBehaviour(recorded);
      return respond(behaviour, recorded, until);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port ?? 0,
    requests,
    baseUrl(format, provider = "default") {
      const root = `http://127.0.0.1:${server.port}/p/${provider}`;
      return format === "openai" ? `${root}/v1` : root;
    },
    setScript(matcher, behaviour) {
      scripts.push({ matcher, behaviours: Array.isArray(behaviour) ? behaviour : [behaviour], used: 0 });
    },
    reset() {
      scripts = [];
      requests.length = 0;
    },
    async waitForRequests(count, timeoutMs = 2000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`mock upstream: expected ${count} requests, got ${requests.length}`);
        await Bun.sleep(5);
      }
      return requests;
    },
    async stop() {
      stopped.resolve();
      await server.stop(true);
    },
  };
}

async function record(request: Request): Promise<RecordedRequest> {
  const url = new URL(request.url);
  let path = url.pathname;
  let provider = "default";
  if (path.startsWith("/p/")) {
    const end = path.indexOf("/", 3);
    provider = end < 0 ? path.slice(3) : path.slice(3, end);
    path = end < 0 ? "/" : path.slice(end);
  }
  const headers: Record<string, string> = {};
  request.headers.forEach((value, key) => (headers[key] = value));
  const rawBody = request.method === "GET" ? "" : await request.text();
  let body: unknown = null;
  try {
    body = rawBody === "" ? null : JSON.parse(rawBody);
  } catch {
    body = null;
  }
  const fields = body as { model?: unknown; stream?: unknown } | null;
  const { format, route, model } = classify(request.method, path, headers);
  return {
    method: request.method,
    path,
    search: url.search,
    provider,
    format,
    route,
    model: model ?? (typeof fields?.model === "string" ? fields.model : null),
    stream: path.endsWith(":streamGenerateContent") || fields?.stream === true,
    headers,
    body,
    rawBody,
    receivedAt: Date.now(),
    aborted: false,
  };
}

function classify(method: string, path: string, headers: Record<string, string>): Pick<RecordedRequest, "format" | "route" | "model"> {
  if (method === "POST" && (path === "/v1/chat/completions" || path === "/chat/completions"))
    return { format: "openai", route: "chat", model: null };
  if (method === "POST" && (path === "/v1/responses" || path === "/responses"))
    return { format: "openai", route: "responses", model: null };
  if (method === "POST" && path === "/v1/messages") return { format: "anthropic", route: "chat", model: null };
  if (method === "POST" && path === "/v1/messages/count_tokens") return { format: "anthropic", route: "count_tokens", model: null };
  if (method === "GET" && path === "/v1/models") {
    const anthropic = headers["anthropic-version"] !== undefined || headers["x-api-key"] !== undefined;
    return { format: anthropic ? "anthropic" : "openai", route: "models", model: null };
  }
  if (method === "GET" && path === "/v1beta/models") return { format: "gemini", route: "models", model: null };
  if (method === "POST" && path.startsWith("/v1beta/models/")) {
    const rest = path.slice("/v1beta/models/".length);
    const colon = rest.lastIndexOf(":");
    if (colon > 0) return { format: "gemini", route: "chat", model: rest.slice(0, colon) };
  }
  return { format: null, route: "unknown", model: null };
}

function pick(scripts: Script[], req: RecordedRequest): Behaviour | undefined {
  for (let i = scripts.length - 1; i >= 0; i--) {
    const script = scripts[i];
    if (!matches(script.matcher, req)) continue;
    const behaviour = script.behaviours[Math.min(script.used, script.behaviours.length - 1)];
    script.used += 1;
    return behaviour;
  }
  return undefined;
}

function matches(matcher: Matcher, req: RecordedRequest): boolean {
  if (typeof matcher === "function") return matcher(req);
  return Object.entries(matcher).every(([key, value]) => value === undefined || req[key as keyof RecordedRequest] === value);
}

function defaultBehaviour(req: RecordedRequest): Behaviour {
  if (req.route === "unknown" || req.format === null) return { kind: "error", status: 404, message: `No route ${req.method} ${req.path}` };
  return { kind: "reply" };
}

function presentedKey(req: RecordedRequest): string | null {
  const bearer = req.headers.authorization?.startsWith("Bearer ") ? req.headers.authorization.slice(7) : null;
  if (req.format === "anthropic") return req.headers["x-api-key"] ?? bearer;
  if (req.format === "gemini") return req.headers["x-goog-api-key"] ?? new URLSearchParams(req.search).get("key");
  return bearer;
}

function authFailure(req: RecordedRequest, keys: Record<string, string> | undefined): Response | null {
  const expected = keys?.[req.provider];
  if (expected === undefined || req.format === null || presentedKey(req) === expected) return null;
  if (req.format === "gemini") {
    const body = {
      error: {
        code: 400,
        message: "API key not valid. Please pass a valid API key.",
        status: "INVALID_ARGUMENT",
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }],
      },
    };
    return Response.json(body, { status: 400 });
  }
  const message = req.format === "anthropic" ? "invalid x-api-key" : "Incorrect API key provided.";
  return Response.json(errorBody(req.format, 401, message), { status: 401 });
}

/** Behaviours whose holdFirst has been spent. */
const held = new WeakSet<Behaviour>();

async function respond(behaviour: Behaviour, req: RecordedRequest, until: Promise<void>): Promise<Response> {
  if (behaviour.kind === "hang") {
    await until;
    return new Response(null, { status: 499 });
  }
  if ("holdFirst" in behaviour && behaviour.holdFirst && !held.has(behaviour)) {
    held.add(behaviour);
    await Promise.race([behaviour.holdFirst, until]);
  }
  if (behaviour.delayMs) await Promise.race([Bun.sleep(behaviour.delayMs), until]);
  const format = req.format ?? "openai";
  const dialect: SseDialect = req.route === "responses" ? "openai-responses" : format;
  const model = req.model ?? "mock-model";
  switch (behaviour.kind) {
    case "error": {
      const body = behaviour.body ?? errorBody(format, behaviour.status, behaviour.message ?? `Mock error ${behaviour.status}`);
      return json(body, behaviour.status, behaviour.headers);
    }
    case "malformed":
      return sse([frameSse(dialect, JSON.stringify(firstValidEvent(dialect))), "data: {not json at all\n\n"], behaviour, until);
    case "sse":
      return sse(behaviour.chunks, behaviour, until);
    case "fixture": {
      if (behaviour.file.endsWith(".chunks.txt")) return sse(fixtureSseEvents(dialect, behaviour.file), behaviour, until);
      return new Response(readFixture(behaviour.file), {
        status: behaviour.status ?? 200,
        headers: { "content-type": "application/json", ...behaviour.headers },
      });
    }
    case "reply": {
      if (req.route === "models") return json(modelsBody(format), 200, behaviour.headers);
      if (req.route === "count_tokens") return json(countTokensBody(behaviour, req.body), 200, behaviour.headers);
      if (req.route === "responses") {
        if (!req.stream) return json(responsesReplyJson(behaviour, model), 200, behaviour.headers);
        return sse(responsesReplySse(behaviour, model), behaviour, until);
      }
      if (!req.stream) return json(replyJson(format, behaviour, model), 200, behaviour.headers);
      const opts = (req.body as { stream_options?: { include_usage?: boolean } } | null)?.stream_options;
      return sse(replySse(format, behaviour, model, opts?.include_usage === true), behaviour, until);
    }
  }
}

/** Anthropic's count_tokens answer: `usage.input` when scripted, else a stand-in that grows with the body's text. */
function countTokensBody(spec: ReplySpec, body: unknown): { input_tokens: number } {
  if (spec.usage?.input !== undefined) return { input_tokens: spec.usage.input };
  const b = (body ?? {}) as { system?: unknown; messages?: unknown; tools?: unknown };
  return { input_tokens: Math.ceil(JSON.stringify([b.system ?? null, b.messages ?? [], b.tools ?? []]).length / 4) };
}

function firstValidEvent(format: SseDialect): unknown {
  if (format === "openai-responses") return responsesFirstEvent();
  if (format === "anthropic") return { type: "ping" };
  if (format === "gemini") return { candidates: [{ content: { parts: [{ text: "Hi" }], role: "model" }, index: 0 }] };
  return {
    id: "chatcmpl-mock",
    object: "chat.completion.chunk",
    created: 1750000000,
    model: "mock-model",
    choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }],
  };
}

function json(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

function sse(chunks: string[], timing: Timing, until: Promise<void>): Response {
  const encoder = new TextEncoder();
  let sent = 0;
  let ended = false;
  until.then(() => (ended = true));
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (timing.hangAfterChunks !== undefined && sent >= timing.hangAfterChunks) {
        await until;
        controller.close();
        return;
      }
      if (sent > 0 && timing.gapMs) await Promise.race([Bun.sleep(timing.gapMs), until]);
      if (ended || sent >= chunks.length) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(chunks[sent++]));
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...timing.headers },
  });
}

function abortPromise(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
}
