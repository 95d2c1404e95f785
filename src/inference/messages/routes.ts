// POST /v1/messages: the Anthropic Messages interface over the same pipeline. Authenticates with
// x-api-key or Bearer; its errors use Anthropic's shape (rendered by the edge, see app.ts).
// Served from Bun's route table (http/hot-routes.ts), registered with Elysia for the OpenAPI document.
import { inferencePost, type RouteHandler } from "../../http/hot-routes";
import { jsonReply, runInterfaceCall, streamReply, translatedCall, type InferenceRouteDeps } from "../interface-call";
import { validationApiError } from "../responses/validation-error";
import { parseMessagesRequest } from "./schema";
import { messagesToChat } from "./to-chat";
import { renderMessage } from "./render";
import { messagesStreamTransformer } from "./stream";
import { anthropicErrorResponse } from "./errors";
import type { ErrorRenderer } from "../../http/edge";

/** Every error on /v1/messages (auth, validation, malformed JSON, upstream) in Anthropic's shape. */
export const messagesErrorRenderer: ErrorRenderer = (err, request, requestId) =>
  new URL(request.url).pathname.startsWith("/v1/messages") ? anthropicErrorResponse(err, requestId) : undefined;

const PATH = "/v1/messages";

function messagesHandler(d: InferenceRouteDeps): RouteHandler {
  return async (request, body, set) => {
    const { out, headers, model } = await runInterfaceCall(
      d,
      request,
      "messages",
      () => {
        const parsed = parseMessagesRequest(body);
        if (!parsed.ok) throw validationApiError(parsed.error);
        return translatedCall(parsed.body, messagesToChat(parsed.body));
      },
      { allowXApiKey: true },
    );
    if (out.kind === "json") {
      return jsonReply(set, headers, renderMessage(out.result));
    }
    const bytes = out.open(messagesStreamTransformer({ model }), d.inference.keepAliveMs);
    return streamReply(set, headers, bytes);
  };
}

export function messagesRoutes(d: InferenceRouteDeps) {
  return inferencePost(
    { ...d, allowXApiKey: true },
    "messages",
    PATH,
    messagesHandler(d),
    "Create a message (Anthropic Messages-compatible; JSON or SSE events)",
  );
}
