// POST /v1/responses: the Responses interface over the same pipeline: passed through as sent to routes
// that speak the Responses API (native.ts), translated to and from chat for the others.
// Served from Bun's route table (http/hot-routes.ts), registered with Elysia for the OpenAPI document.
// With the Responses store on (store/), previous_response_id is resolved before the call and the answer
// is kept after it is written (store/keep.ts).
import { inferencePost, type RouteHandler } from "../../http/hot-routes";
import { jsonReply, runInterfaceCall, streamReply, textReply, translatedCall, type InferenceRouteDeps } from "../interface-call";
import { nativeCall, withRoutingText } from "../native";
import { nativeStreamEncoder } from "../native-stream";
import { parseResponsesRequest } from "./schema";
import { responsesToChat, type ResponsesEcho } from "./to-chat";
import { validationApiError } from "./validation-error";
import { renderResponse } from "./render";
import { responsesStreamTransformer } from "./stream";
import { NOT_KEPT, prepareKeeping } from "./store/keep";
import { capturingEncoder } from "./store/capture";

const PATH = "/v1/responses";

function responsesHandler(d: InferenceRouteDeps): RouteHandler {
  return async (request, sent, set) => {
    const keeping = d.inference.responseStore ? await prepareKeeping(d, d.inference.responseStore, request, sent) : NOT_KEPT;
    const body = keeping.body ?? sent;
    let echo: ResponsesEcho | undefined;
    const { out, headers, model } = await runInterfaceCall(d, request, "responses", () =>
      nativeCall("responses", request, body, (b) => {
        // The gateway does not have the previous response: only the route that stored it may serve the call.
        if (keeping.missing) throw keeping.missing;
        const parsed = parseResponsesRequest(b);
        if (!parsed.ok) throw validationApiError(parsed.error);
        const t = responsesToChat(parsed.body);
        echo = keeping.previousResponseId ? { ...t.echo, previousResponseId: keeping.previousResponseId } : t.echo;
        const call = translatedCall(parsed.body, t);
        if (keeping.warning) call.warnings = [...(call.warnings ?? []), keeping.warning];
        return call;
      }),
    );
    if (out.kind === "json") {
      const { nativeText, routing } = out.result;
      if (nativeText !== undefined) return keeping.kept(textReply(set, headers, withRoutingText(nativeText, routing)));
      const rendered = renderResponse(out.result, { ...echo!, model: echo!.model || model });
      return keeping.kept(jsonReply(set, headers, rendered), rendered);
    }
    // A translated attempt is possible only when the translation was made (echo is set then).
    const encoder = nativeStreamEncoder("responses", () => responsesStreamTransformer({ ...echo!, model: echo!.model || model }));
    const bytes = out.open(keeping.input ? capturingEncoder(encoder, keeping.kept) : encoder, d.inference.keepAliveMs);
    return streamReply(set, headers, bytes);
  };
}

export function responsesRoutes(d: InferenceRouteDeps) {
  return inferencePost(
    d,
    "responses",
    PATH,
    responsesHandler(d),
    "Create a model response (OpenAI Responses-compatible; JSON or SSE events). Kept for previous_response_id and GET /v1/responses/{id} unless store is false",
  );
}
