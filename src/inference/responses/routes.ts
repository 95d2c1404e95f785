// POST /v1/responses: the Responses interface over the same pipeline: passed through as sent to routes
// that speak the Responses API (native.ts), translated to and from chat for the others.
// Served from Bun's route table (http/hot-routes.ts), registered with Elysia for the OpenAPI document.
import { inferencePost, type RouteHandler } from "../../http/hot-routes";
import { jsonReply, runInterfaceCall, streamReply, textReply, translatedCall, type InferenceRouteDeps } from "../interface-call";
import { nativeCall, withRoutingText } from "../native";
import { nativeStreamEncoder } from "../native-stream";
import { parseResponsesRequest } from "./schema";
import { responsesToChat, type ResponsesEcho } from "./to-chat";
import { validationApiError } from "./validation-error";
import { renderResponse } from "./render";
import { responsesStreamTransformer } from "./stream";

const PATH = "/v1/responses";

function responsesHandler(d: InferenceRouteDeps): RouteHandler {
  return async (request, body, set) => {
    let echo: ResponsesEcho | undefined;
    const { out, headers, model } = await runInterfaceCall(d, request, "responses", () =>
      nativeCall("responses", request, body, (b) => {
        const parsed = parseResponsesRequest(b);
        if (!parsed.ok) throw validationApiError(parsed.error);
        const t = responsesToChat(parsed.body);
        echo = t.echo;
        return translatedCall(parsed.body, t);
      }),
    );
    if (out.kind === "json") {
      const { nativeText, routing } = out.result;
      if (nativeText !== undefined) return textReply(set, headers, withRoutingText(nativeText, routing));
      return jsonReply(set, headers, renderResponse(out.result, { ...echo!, model: echo!.model || model }));
    }
    // A translated attempt is possible only when the translation was made (echo is set then).
    const encoder = nativeStreamEncoder("responses", () => responsesStreamTransformer({ ...echo!, model: echo!.model || model }));
    const bytes = out.open(encoder, d.inference.keepAliveMs);
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
