// POST /v1/messages: the Anthropic Messages interface over the same pipeline, passed through as sent to
// Anthropic routes (native.ts) and translated for the others. Authenticates with
// x-api-key or Bearer; its errors use Anthropic's shape (rendered by the edge, see app.ts).
// Served from Bun's route table (http/hot-routes.ts), registered with Elysia for the OpenAPI document.
import { inferencePost, type RouteHandler } from "../../http/hot-routes";
import { jsonReply, runInterfaceCall, streamReply, textReply, translatedCall, type InferenceRouteDeps } from "../interface-call";
import { nativeCall, withRoutingText } from "../native";
import { nativeStreamEncoder } from "../native-stream";
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
    const { out, headers, model, requestId } = await runInterfaceCall(
      d,
      request,
      "messages",
      () =>
        nativeCall("anthropic", request, body, (b) => {
          const parsed = parseMessagesRequest(b);
          if (!parsed.ok) throw validationApiError(parsed.error);
          return translatedCall(parsed.body, messagesToChat(parsed.body));
        }),
      { allowXApiKey: true },
    );
    // Anthropic's SDKs read the request id from `request-id` (message._request_id), as its errors already carry it.
    headers["request-id"] = requestId;
    if (out.kind === "json") {
      const { nativeText, routing } = out.result;
      if (nativeText !== undefined) return textReply(set, headers, withRoutingText(nativeText, routing));
      return jsonReply(set, headers, renderMessage(out.result));
    }
    const encoder = nativeStreamEncoder("anthropic", () => messagesStreamTransformer({ model }));
    const bytes = out.open(encoder, d.inference.keepAliveMs);
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
