// One stream chunk's parts of a candidate → deltas, in the parts' order: thought text as reasoning
// fragments (a thought run spans chunks until the part that carries its signature), a signature outside
// thoughts as one reasoning.encrypted fragment, answer text as content, function calls as tool calls.
// Gemini may close a function-call turn with its signature on an empty text part of a later chunk:
// that signature belongs to the turn's first call, which Gemini 3 checks for it.
import type { ChunkDelta } from "../types";
import { GEMINI_FORMAT, type ReasoningFragment } from "../reasoning";
import type { GeminiPartWire } from "./wire";

export interface ThoughtState {
  toolCalls: number;
  /** reasoning_details entries emitted so far (the next fragment's index). */
  entries: number;
  /** The thought entry that more thought text appends to, until a signature or other part closes it. */
  openThought: number | null;
  /** The candidate's first tool call, while no call of it has come with a signature. */
  unsignedCall: string | null;
  signedCall: boolean;
}

export function newThoughtState(): ThoughtState {
  return { toolCalls: 0, entries: 0, openThought: null, unsignedCall: null, signedCall: false };
}

export function partDeltas(st: ThoughtState, parts: GeminiPartWire[], callId: (ordinal: number) => string): ChunkDelta[] {
  const out: ChunkDelta[] = [];
  let text = "";
  const flush = () => {
    if (text !== "") out.push({ content: text });
    text = "";
  };
  for (const part of parts) {
    const signature = part.thoughtSignature || undefined;
    if (part.thought === true) {
      flush();
      thoughtDeltas(st, part.text ?? "", signature, out);
      continue;
    }
    st.openThought = null;
    if (part.functionCall) {
      flush();
      const id = part.functionCall.id ?? callId(st.toolCalls);
      if (signature) {
        st.signedCall = true;
        out.push(encrypted(st, signature, id));
      } else if (!st.signedCall && st.unsignedCall === null) st.unsignedCall = id;
      const args = JSON.stringify(part.functionCall.args ?? {});
      out.push({
        tool_calls: [{ index: st.toolCalls, id, type: "function", function: { name: part.functionCall.name ?? "", arguments: args } }],
      });
      st.toolCalls += 1;
      continue;
    }
    if (typeof part.text === "string") text += part.text;
    if (!signature) continue;
    flush();
    const late = !part.text && !st.signedCall ? st.unsignedCall : null;
    if (late !== null) st.signedCall = true;
    out.push(encrypted(st, signature, late ?? undefined));
  }
  flush();
  return out;
}

function thoughtDeltas(st: ThoughtState, text: string, signature: string | undefined, out: ChunkDelta[]): void {
  if (text === "" && !signature) return;
  const index = st.openThought ?? st.entries++;
  st.openThought = index;
  if (text !== "") out.push(fragment({ type: "reasoning.text", format: GEMINI_FORMAT, index, text }, text));
  if (signature) {
    out.push(fragment({ type: "reasoning.text", format: GEMINI_FORMAT, index, signature }));
    st.openThought = null;
  }
}

function encrypted(st: ThoughtState, data: string, id: string | undefined): ChunkDelta {
  const f: ReasoningFragment = { type: "reasoning.encrypted", format: GEMINI_FORMAT, index: st.entries++, data };
  if (id !== undefined) f.id = id;
  return fragment(f);
}

/** A text fragment also carries the text as `reasoning_content` (DeepSeek's chat field). */
function fragment(f: ReasoningFragment, text?: string): ChunkDelta {
  return { extra: text === undefined ? { reasoning_details: [f] } : { reasoning_details: [f], reasoning_content: text } };
}
