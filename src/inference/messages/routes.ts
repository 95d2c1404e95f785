// POST /v1/messages: the Anthropic Messages interface over the same pipeline. Authenticates with
// x-api-key or Bearer; its errors use Anthropic's shape (rendered by the edge, see app.ts).
import { Elysia } from "elysia";
import { jsonReply, runInterfaceCall, streamReply, type InferenceRouteDeps } from "../interface-call";
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

export function messagesRoutes(d: InferenceRouteDeps) {
  return new Elysia({ name: "messages" }).post(
    "/v1/messages",
    async ({ body, request, set }) => {
      const { out, headers, model } = await runInterfaceCall(
        d,
        request,
        "messages",
        () => {
          const parsed = parseMessagesRequest(body);
          if (!parsed.ok) throw validationApiError(parsed.error);
          const t = messagesToChat(parsed.body);
          return {
            request: t.request,
            warnings: t.warnings,
            gateway: parsed.body.gateway,
            extensions: (parsed.body as { extensions?: unknown }).extensions,
            stream: parsed.body.stream === true,
          };
        },
        { allowXApiKey: true },
      );
      if (out.kind === "json") {
        return jsonReply(set, headers, renderMessage(out.result));
      }
      const bytes = out.open(messagesStreamTransformer({ model }), d.inference.keepAliveMs);
      return streamReply(set, headers, bytes);
    },
    {
      detail: {
        summary: "Create a message (Anthropic Messages-compatible; JSON or SSE events)",
        tags: ["inference"],
        security: [{ bearer: [] }],
      },
    },
  );
}
