// Internal request → OpenAI-compatible wire request. The internal model *is* this shape, so the
// translation is a pass-through: unknown top-level fields travel on (vendors add their own), the
// gateway's routing decides the model, and streams always ask for the final usage chunk. A translated
// request's reasoning and cache markers are first shaped to what the vendor takes back (vendor.ts).
import type { BuiltRequest, ChatRequest, UpstreamTarget } from "../types";
import { mergeExtensions } from "../extensions";
import { forVendor } from "./vendor";

export function buildOpenAIRequest(req: ChatRequest, target: UpstreamTarget): BuiltRequest {
  return chatRequest(forVendor(req, target), target);
}

/** The request as it is (a chat client's own body on a chat route: native.ts), to this route. */
export function chatRequest(req: ChatRequest, target: UpstreamTarget): BuiltRequest {
  const body: Record<string, unknown> = { ...req, model: target.providerModelId };
  mergeExtensions(body, target.extensions);
  if (req.stream === true) {
    const streamOptions = typeof body.stream_options === "object" && body.stream_options !== null ? body.stream_options : {};
    // Without usage the request cannot be metered, so this is not the client's choice.
    body.stream_options = { ...streamOptions, include_usage: true };
  }
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: req.stream === true ? "text/event-stream" : "application/json",
  };
  // Local servers (Ollama, vLLM, LM Studio) run without a credential.
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  return { url: `${trimSlash(target.baseUrl)}/chat/completions`, headers, body: JSON.stringify(body), warnings: [] };
}

export function trimSlash(url: string): string {
  return url.endsWith("/") ? url.slice(0, -1) : url;
}
