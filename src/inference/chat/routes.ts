// POST /v1/chat/completions: validate, hand to the pipeline, render. Thin by design.
import { Elysia } from "elysia";
import type { ChatRequest } from "../../providers/types";
import { jsonReply, runInterfaceCall, streamReply, type InferenceRouteDeps } from "../interface-call";
import { ChatCompletionBody } from "./schema";
import { chatSseTransformer, renderChatCompletion } from "./render";

export function chatRoutes(d: InferenceRouteDeps) {
  return new Elysia({ name: "chat" }).post(
    "/v1/chat/completions",
    async ({ body, request, set }) => {
      const { out, headers } = await runInterfaceCall(d, request, "chat_completions", () => {
        const { gateway, extensions, ...rest } = body;
        return { request: rest as ChatRequest, gateway, extensions, stream: rest.stream === true, validated: true };
      });
      if (out.kind === "json") return jsonReply(set, headers, renderChatCompletion(out.result));
      const bytes = out.open(chatSseTransformer(), d.inference.keepAliveMs);
      return streamReply(set, headers, bytes);
    },
    {
      body: ChatCompletionBody,
      detail: {
        summary: "Create a chat completion (OpenAI-compatible; JSON or SSE stream)",
        tags: ["inference"],
        security: [{ bearer: [] }],
      },
    },
  );
}
