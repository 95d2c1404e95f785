// POST /v1/chat/completions: validate, hand to the pipeline, render. Thin by design. The handler is
// served from Bun's route table (http/hot-routes.ts) and registered with Elysia for the OpenAPI document.
import type { ChatRequest } from "../../providers/types";
import { inferencePost, type RouteHandler } from "../../http/hot-routes";
import { jsonReply, runInterfaceCall, streamReply, textReply, type InferenceRouteDeps, type TranslatedCall } from "../interface-call";
import { forwardedHeaders, withRoutingText } from "../native";
import { ChatCompletionBody, type ChatCompletionBodyT } from "./schema";
import { chatSseTransformer, renderChatCompletion } from "./render";
import { withReasoningDetails } from "./reasoning-in";

const PATH = "/v1/chat/completions";

/**
 * The body without the gateway's own fields (copied only when it has them: most bodies do not). It is
 * the chat model already, and the native body of OpenAI-compatible routes.
 */
function translate(body: ChatCompletionBodyT, headers: Record<string, string>): TranslatedCall {
  let request = body as ChatRequest;
  if ("gateway" in body || "extensions" in body) {
    const { gateway: _g, extensions: _e, ...rest } = body;
    request = rest as ChatRequest;
  }
  const native = { request: { wire: "chat" as const, body: request, headers } };
  return {
    request: withReasoningDetails(request),
    gateway: body.gateway,
    extensions: body.extensions,
    stream: body.stream === true,
    validated: true,
    native,
  };
}

function chatHandler(d: InferenceRouteDeps): RouteHandler {
  return async (request, body, set) => {
    const { out, headers } = await runInterfaceCall(d, request, "chat_completions", () =>
      translate(body as ChatCompletionBodyT, forwardedHeaders("chat", request)),
    );
    if (out.kind === "json") {
      const { nativeText, routing } = out.result;
      if (nativeText !== undefined) return textReply(set, headers, withRoutingText(nativeText, routing));
      return jsonReply(set, headers, renderChatCompletion(out.result));
    }
    return streamReply(set, headers, out.open(chatSseTransformer(), d.inference.keepAliveMs));
  };
}

export function chatRoutes(d: InferenceRouteDeps) {
  const summary = "Create a chat completion (OpenAI-compatible; JSON or SSE stream)";
  return inferencePost(d, "chat", PATH, chatHandler(d), summary, ChatCompletionBody);
}
