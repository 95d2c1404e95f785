// A chat client's assistant reasoning, read into the chat model's one convention (providers/reasoning.ts):
// `reasoning_details` entry by entry (OpenRouter's field, signatures included), else the text DeepSeek's
// `reasoning_content` or OpenRouter's `reasoning` carry, as one unsigned entry. Only the translated request
// changes: the native body a chat route receives stays as the client sent it.
import type { ChatMessage, ChatRequest } from "../../providers/types";
import { readDetails, type ReasoningDetail } from "../../providers/reasoning";

function hasReasoning(m: ChatMessage): boolean {
  return (
    m.role === "assistant" &&
    (m.reasoning_details !== undefined || typeof m.reasoning_content === "string" || typeof m.reasoning === "string")
  );
}

function detailsOf(m: ChatMessage): ReasoningDetail[] {
  if (m.reasoning_details !== undefined) return readDetails(m.reasoning_details);
  const text = typeof m.reasoning_content === "string" ? m.reasoning_content : (m.reasoning as string);
  return text === "" ? [] : [{ type: "reasoning.text", text, format: "unknown" }];
}

/** The request with every assistant message's reasoning as well-formed entries (the same object when none has any). */
export function withReasoningDetails(request: ChatRequest): ChatRequest {
  if (!request.messages.some(hasReasoning)) return request;
  const messages = request.messages.map((m) => {
    if (!hasReasoning(m)) return m;
    const { reasoning_details: _d, ...rest } = m;
    const details = detailsOf(m);
    return details.length > 0 ? { ...rest, reasoning_details: details } : rest;
  });
  return { ...request, messages };
}
