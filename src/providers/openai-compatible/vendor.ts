// What a chat-completions vendor accepts back in a translated request (catalog rows: `chatReasoning`,
// `cacheControl`). The chat model carries every dialect's reasoning and cache markers; a vendor that has
// no field for them would reject or misread them, so they are shaped here and dropped where they have no
// place (silently: another provider's state is not the client's error, and caching on these wires is by
// prefix). A chat client's own body on a chat route does not come here (native.ts): it goes as sent.
import type { ChatMessage, ChatRequest, ContentPart, ToolDef, UpstreamTarget } from "../types";
import type { ChatReasoning } from "../../catalog/types";
import { reasoningText } from "../reasoning";

const REASONING_FIELDS = ["reasoning_details", "reasoning_content", "reasoning"] as const;

/** The request as this vendor takes it (the same object when nothing needs to change). */
export function forVendor(req: ChatRequest, target: UpstreamTarget): ChatRequest {
  const keepCache = target.cacheControl === true;
  let messages: ChatMessage[] | undefined;
  req.messages.forEach((m, i) => {
    const shaped = shapeMessage(m, target.chatReasoning, keepCache);
    if (shaped !== m) (messages ??= req.messages.slice())[i] = shaped;
  });
  const tools = keepCache || !req.tools?.some(hasCacheControl) ? req.tools : req.tools.map(withoutCacheControl);
  if (messages === undefined && tools === req.tools) return req;
  return { ...req, messages: messages ?? req.messages, ...(tools !== undefined ? { tools } : {}) };
}

function shapeMessage(m: ChatMessage, chatReasoning: ChatReasoning | undefined, keepCache: boolean): ChatMessage {
  let out = m;
  if (m.role === "assistant" && chatReasoning !== "reasoning_details" && REASONING_FIELDS.some((f) => m[f] !== undefined)) {
    const { reasoning_details, reasoning_content, reasoning: _reasoning, ...rest } = m;
    out = rest;
    if (chatReasoning === "reasoning_content") {
      const text = reasoning_details !== undefined ? reasoningText(reasoning_details) : reasoning_content;
      if (typeof text === "string" && text !== "") out.reasoning_content = text;
    }
  }
  if (keepCache) return out;
  if (hasCacheControl(out)) out = withoutCacheControl(out);
  if (Array.isArray(out.content) && out.content.some(hasCacheControl)) out = { ...out, content: out.content.map(withoutCacheControl) };
  return out;
}

function hasCacheControl(value: ChatMessage | ContentPart | ToolDef): boolean {
  return (value as { cache_control?: unknown }).cache_control !== undefined;
}

function withoutCacheControl<T extends ChatMessage | ContentPart | ToolDef>(value: T): T {
  if (!hasCacheControl(value)) return value;
  const { cache_control: _cache, ...rest } = value as T & { cache_control?: unknown };
  return rest as T;
}
