// POST /v1/chat/completions: validate, authenticate, hand to the pipeline, render. Thin by design.
import { Elysia } from "elysia";
import type { ApiKeyCache } from "../../auth/key-cache";
import { authenticate } from "../../http/auth";
import { requestIdOf } from "../../http/edge";
import type { InferenceDeps } from "../context";
import { callContext, runCall } from "../call";
import { ChatCompletionBody } from "./schema";
import { chatSseEncoder, renderChatCompletion, withKeepAlive } from "./render";

export const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" };

export interface InferenceRouteDeps {
  inference: InferenceDeps;
  keys: ApiKeyCache;
  /** Rate-limit hook for the `inference` class (per API key); throws ApiError 429 when over. */
  limit(apiKeyId: string, headers: Record<string, string>): void | Promise<void>;
}

export function chatRoutes(d: InferenceRouteDeps) {
  return new Elysia({ name: "chat" }).post(
    "/v1/chat/completions",
    async ({ body, request }) => {
      const auth = await authenticate(d.keys, request.headers);
      const headers: Record<string, string> = {};
      await d.limit(auth.key.id, headers);
      const { gateway, extensions, ...rest } = body;
      const ctx = callContext(
        { requestId: requestIdOf(request), workspaceId: auth.workspaceId, apiKeyId: auth.key.id, endpoint: "chat_completions", signal: request.signal },
        gateway?.metadata,
      );
      const stream = rest.stream === true;
      const out = await runCall(d.inference, ctx, { request: rest as never, gateway, extensions }, "chat_completions", stream);
      Object.assign(headers, out.headers, { "x-request-id": ctx.requestId });
      if (out.kind === "json") {
        return new Response(JSON.stringify(renderChatCompletion(out.result)), { headers: { ...headers, "content-type": "application/json" } });
      }
      const bytes = withKeepAlive(out.events.pipeThrough(chatSseEncoder()), d.inference.keepAliveMs);
      return new Response(bytes, { headers: { ...headers, ...SSE_HEADERS } });
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
