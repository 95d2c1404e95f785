// POST /v1/chat/completions: validate, hand to the pipeline, render. Thin by design. The handler is
// served from Bun's route table (http/hot-routes.ts) and registered with Elysia for the OpenAPI document.
import type { ChatRequest } from "../../providers/types";
import { inferencePost, type RouteHandler } from "../../http/hot-routes";
import { jsonReply, runInterfaceCall, streamReply, type InferenceRouteDeps } from "../interface-call";
import { ChatCompletionBody, type ChatCompletionBodyT } from "./schema";
import { chatSseTransformer, renderChatCompletion } from "./render";

const PATH = "/v1/chat/completions";

/** The body without the gateway's own fields (copied only when it has them: most bodies do not). */
function translate(body: ChatCompletionBodyT) {
  let request = body as ChatRequest;
  if ("gateway" in body || "extensions" in body) {
    const { gateway: _g, extensions: _e, ...rest } = body;
    request = rest as ChatRequest;
  }
  return { request, gateway: body.gateway, extensions: body.extensions, stream: body.stream === true, validated: true };
}

function chatHandler(d: InferenceRouteDeps): RouteHandler {
  return async (request, body, set) => {
    const { out, headers } = await runInterfaceCall(d, request, "chat_completions", () => translate(body as ChatCompletionBodyT));
    if (out.kind === "json") return jsonReply(set, headers, renderChatCompletion(out.result));
    return streamReply(set, headers, out.open(chatSseTransformer(), d.inference.keepAliveMs));
  };
}

export function chatRoutes(d: InferenceRouteDeps) {
  const summary = "Create a chat completion (OpenAI-compatible; JSON or SSE stream)";
  return inferencePost(d, "chat", PATH, chatHandler(d), summary, ChatCompletionBody);
}
