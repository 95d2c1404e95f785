// A request in a dialect some routes speak natively (Messages → Anthropic, Responses → the Responses
// API). The body goes to those routes as the client sent it, so the gateway validates only what it
// needs itself (an object, the model, stream, its own fields); the rest is the provider's to judge.
// The interface's translation is still made, for the routes of other wires: when it refuses the body
// (a role, block or field it does not know), only the native routes may serve the call.
import { ApiError } from "../http/errors";
import { isRecord } from "../providers/content-parts";
import type { ChatRequest, NativeWire } from "../providers/types";
import type { TranslatedCall } from "./interface-call";
import type { RoutingMetadata } from "./types";
import { cutCarried } from "./native-carried";

/** The client headers each wire defines and a pass-through forwards. */
const FORWARDED: Record<NativeWire, string[]> = {
  anthropic: ["anthropic-version", "anthropic-beta"],
  responses: ["openai-beta"],
  chat: ["openai-beta"],
};

/** The dialect's headers the client sent (FORWARDED). */
export function forwardedHeaders(wire: NativeWire, request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED[wire]) {
    const value = request.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return headers;
}

export function nativeCall(
  wire: NativeWire,
  request: Request,
  body: unknown,
  translate: (body: Record<string, unknown>) => TranslatedCall,
): TranslatedCall {
  if (!isRecord(body)) throw new ApiError("invalid_request", "The request body must be a JSON object.");
  if (body.model !== undefined && typeof body.model !== "string")
    throw new ApiError("invalid_parameter", "'model' must be a string.", { param: "model" });
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean")
    throw new ApiError("invalid_parameter", "'stream' must be a boolean.", { param: "stream" });
  const { gateway, extensions, ...sent } = body;
  const headers = forwardedHeaders(wire, request);
  let t: TranslatedCall;
  let untranslatable: ApiError | undefined;
  try {
    t = translate(body);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    untranslatable = err;
    t = { request: estimateRequest(sent), gateway, extensions, stream: sent.stream === true };
  }
  const cut = cutCarried(wire, sent);
  const passed = cut ? { wire, body: cut.body, headers, warnings: cut.warnings } : { wire, body: sent, headers };
  return { ...t, native: { request: passed, untranslatable } };
}

/**
 * A body the translation refused, as the chat request the pipeline measures it by (the worst-case
 * reservation, the estimate when a stream's usage never comes): its prompt as JSON text, its output cap.
 */
function estimateRequest(body: Record<string, unknown>): ChatRequest {
  const prompt = [body.system, body.instructions, body.messages, body.input, body.tools].filter((v) => v !== undefined);
  const max = body.max_tokens ?? body.max_output_tokens;
  const request: ChatRequest = {
    model: typeof body.model === "string" ? body.model : "",
    messages: [{ role: "user", content: JSON.stringify(prompt) }],
  };
  if (typeof max === "number") request.max_tokens = max;
  return request;
}

/** A native JSON answer with `routing_metadata` added as its last field, the rest of its text untouched. */
export function withRoutingText(text: string, routing: RoutingMetadata): string {
  const end = text.lastIndexOf("}");
  if (end < 0) return text;
  let before = end - 1;
  while (before >= 0 && /\s/.test(text[before]!)) before--;
  const comma = before >= 0 && text[before] !== "{" ? "," : "";
  return `${text.slice(0, end)}${comma}"routing_metadata":${JSON.stringify(routing)}${text.slice(end)}`;
}
