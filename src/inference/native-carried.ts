// A native body must not carry another provider family's reasoning upstream: a client that spoke this
// dialect to a route of another family holds that family's entries as `swy1.` tokens in the dialect's
// own opaque field (providers/reasoning.ts), and the provider would refuse them as a bad signature or
// bad encrypted content. They are cut out here; nothing else of the body changes, and a body without
// them is passed as it is (the usual case: no copy).
import { isRecord } from "../providers/content-parts";
import { isCarried } from "../providers/reasoning";
import type { NativeWire, Warning } from "../providers/types";

export interface CarriedCut {
  body: Record<string, unknown>;
  warnings: Warning[];
}

const isCarriedBlock = (b: unknown): boolean => isRecord(b) && b.type === "thinking" && isCarried(b.signature);
const isCarriedItem = (i: unknown): boolean => isRecord(i) && i.type === "reasoning" && isCarried(i.encrypted_content);
const startsWithThinking = (content: unknown[]): boolean =>
  isRecord(content[0]) && (content[0].type === "thinking" || content[0].type === "redacted_thinking");

function cutMessages(body: Record<string, unknown>, messages: unknown[]): CarriedCut | null {
  const hasCarried = (m: unknown) => isRecord(m) && m.role === "assistant" && Array.isArray(m.content) && m.content.some(isCarriedBlock);
  if (!messages.some(hasCarried)) return null;
  const cut = messages.map((m) =>
    hasCarried(m)
      ? { ...(m as Record<string, unknown>), content: (m as { content: unknown[] }).content.filter((b) => !isCarriedBlock(b)) }
      : m,
  );
  const out: Record<string, unknown> = { ...body, messages: cut };
  const warnings: Warning[] = [];
  // With thinking on, Anthropic wants the last assistant turn that called a tool to start with its thinking: the
  // cut one was another provider's, so this request goes without thinking rather than be refused.
  const lastAssistant = [...cut].reverse().find((m) => isRecord(m) && m.role === "assistant") as { content?: unknown } | undefined;
  const content = Array.isArray(lastAssistant?.content) ? lastAssistant.content : [];
  const callsTool = content.some((b) => isRecord(b) && b.type === "tool_use");
  const thinking = isRecord(body.thinking) ? body.thinking.type : undefined;
  if (callsTool && !startsWithThinking(content) && (thinking === "enabled" || thinking === "adaptive")) {
    delete out.thinking;
    warnings.push({
      type: "unsupported_parameter",
      code: "thinking",
      message:
        "The last assistant turn's thinking came from another provider and cannot be sent to Anthropic, which then refuses thinking; this request was sent without thinking.",
    });
  }
  return { body: out, warnings };
}

function cutItems(body: Record<string, unknown>, input: unknown[]): CarriedCut | null {
  if (!input.some(isCarriedItem)) return null;
  return { body: { ...body, input: input.filter((i) => !isCarriedItem(i)) }, warnings: [] };
}

/** The body without other families' carried reasoning, or null when it has none. */
export function cutCarried(wire: NativeWire, body: Record<string, unknown>): CarriedCut | null {
  if (wire === "anthropic" && Array.isArray(body.messages)) return cutMessages(body, body.messages);
  if (wire === "responses" && Array.isArray(body.input)) return cutItems(body, body.input);
  return null;
}
