// POST /v1/responses: the Responses interface over the same pipeline (translated to and from chat).
// Served from Bun's route table (http/hot-routes.ts), registered with Elysia for the OpenAPI document.
import { inferencePost, type RouteHandler } from "../../http/hot-routes";
import { jsonReply, runInterfaceCall, streamReply, translatedCall, type InferenceRouteDeps } from "../interface-call";
import { parseResponsesRequest } from "./schema";
import { responsesToChat, type ResponsesEcho } from "./to-chat";
import { validationApiError } from "./validation-error";
import { renderResponse } from "./render";
import { responsesStreamTransformer } from "./stream";

const PATH = "/v1/responses";

function responsesHandler(d: InferenceRouteDeps): RouteHandler {
  return async (request, body, set) => {
    let echo: ResponsesEcho | undefined;
    const { out, headers, model } = await runInterfaceCall(d, request, "responses", () => {
      const parsed = parseResponsesRequest(body);
      if (!parsed.ok) throw validationApiError(parsed.error);
      const t = responsesToChat(parsed.body);
      echo = t.echo;
      return translatedCall(parsed.body, t);
    });
    const e: ResponsesEcho = { ...echo!, model: echo!.model || model };
    if (out.kind === "json") {
      return jsonReply(set, headers, renderResponse(out.result, e));
    }
    const bytes = out.open(responsesStreamTransformer(e), d.inference.keepAliveMs);
    return streamReply(set, headers, bytes);
  };
}

export function responsesRoutes(d: InferenceRouteDeps) {
  return inferencePost(
    d,
    "responses",
    PATH,
    responsesHandler(d),
    "Create a model response (OpenAI Responses-compatible; JSON or SSE events)",
  );
}
