// POST /v1/responses: the Responses interface over the same pipeline (translated to and from chat).
import { Elysia } from "elysia";
import { jsonReply, runInterfaceCall, streamReply, type InferenceRouteDeps } from "../interface-call";
import { parseResponsesRequest } from "./schema";
import { responsesToChat, type ResponsesEcho } from "./to-chat";
import { validationApiError } from "./validation-error";
import { renderResponse } from "./render";
import { responsesStreamTransformer } from "./stream";

export function responsesRoutes(d: InferenceRouteDeps) {
  return new Elysia({ name: "responses" }).post(
    "/v1/responses",
    async ({ body, request, set }) => {
      let echo: ResponsesEcho | undefined;
      const { out, headers, model } = await runInterfaceCall(d, request, "responses", () => {
        const parsed = parseResponsesRequest(body);
        if (!parsed.ok) throw validationApiError(parsed.error);
        const t = responsesToChat(parsed.body);
        echo = t.echo;
        return {
          request: t.request,
          warnings: t.warnings,
          gateway: parsed.body.gateway,
          extensions: (parsed.body as { extensions?: unknown }).extensions,
          stream: parsed.body.stream === true,
        };
      });
      const e: ResponsesEcho = { ...echo!, model: echo!.model || model };
      if (out.kind === "json") {
        return jsonReply(set, headers, renderResponse(out.result, e));
      }
      const bytes = out.open(responsesStreamTransformer(e), d.inference.keepAliveMs);
      return streamReply(set, headers, bytes);
    },
    {
      detail: {
        summary: "Create a model response (OpenAI Responses-compatible; JSON or SSE events)",
        tags: ["inference"],
        security: [{ bearer: [] }],
      },
    },
  );
}
