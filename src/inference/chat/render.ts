// The chat completions wire format: the JSON object and the SSE chunk sequence of API document §4.1
// (role chunk, deltas, finish chunk, usage chunk, routing_metadata chunk, [DONE]). Shapes follow
// OpenAI's CreateChatCompletionResponse / CreateChatCompletionStreamResponse schemas.
import type { PlainChoiceFramer, Usage } from "../../providers/types";
import { isEmptyDelta } from "../../providers/delta";
import type { PipelineEvent, PipelineResult, RoutingMetadata } from "../types";

export function usageJson(u: Usage) {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

export function renderChatCompletion({ result, routing }: PipelineResult) {
  return {
    id: result.id,
    object: "chat.completion",
    created: result.created,
    model: result.model,
    choices: result.choices.map((c) => ({
      index: c.index,
      message: { ...c.message, refusal: c.message.refusal ?? null },
      logprobs: c.logprobs ?? null,
      finish_reason: c.finish_reason,
    })),
    usage: usageJson(result.usage),
    system_fingerprint: result.systemFingerprint ?? "switchyard",
    service_tier: "default",
    routing_metadata: routing,
  };
}

const DONE = "data: [DONE]\n\n";
const utf8 = new TextEncoder();

interface ChunkState {
  id: string;
  created: number;
  model: string;
  /** `data: {"id":…,"choices":[` — the same for every delta chunk of the stream, so built once. */
  head: string;
  rolesSent: Set<number>;
}

/** PipelineEvents → SSE text (the response sink encodes it). Each delta is written as it arrives; usage and routing once, at the end. */
export function chatSseTransformer(): Transformer<PipelineEvent, string> & PlainChoiceFramer {
  const st: ChunkState = { id: "", created: 0, model: "", head: "", rolesSent: new Set() };
  let frame: { head: Uint8Array; tail: Uint8Array } | null = null;
  const write = (c: TransformStreamDefaultController<string>, obj: unknown) => c.enqueue(`data: ${JSON.stringify(obj)}\n\n`);
  const chunk = (choices: unknown[]) => ({
    id: st.id,
    object: "chat.completion.chunk",
    created: st.created,
    model: st.model,
    system_fingerprint: "switchyard",
    choices,
  });
  // A delta chunk is the stream's head plus one choice serialised in place: the same text as
  // JSON.stringify(chunk([choice])), without a chunk, an array and a choice object per delta.
  const deltaChunk = (index: number, deltaJson: string, logprobs: unknown, finishReason: string | null) =>
    `${st.head}{"index":${index},"delta":${deltaJson},"logprobs":${logprobs === null ? "null" : JSON.stringify(logprobs)},"finish_reason":${finishReason === null ? "null" : JSON.stringify(finishReason)}}]}\n\n`;
  // The usage and routing chunks are a chunk with no choices and one more field: the head built once,
  // `]`, the field, `}` — the text JSON.stringify({ ...chunk([]), [name]: value }) gives, without
  // serialising the envelope again (before any delta there is no head: then it is serialised whole).
  const fieldChunk = (name: string, value: unknown) =>
    st.head !== "" ? `${st.head}],"${name}":${JSON.stringify(value)}}\n\n` : `data: ${JSON.stringify({ ...chunk([]), [name]: value })}\n\n`;
  const tail = (c: TransformStreamDefaultController<string>, usage: Usage | null, routing: RoutingMetadata | undefined) => {
    if (usage) c.enqueue(fieldChunk("usage", usageJson(usage)));
    if (routing) c.enqueue(fieldChunk("routing_metadata", routing));
  };
  return {
    // The pass-through (providers/types.ts): once choice 0 has had its role, a plain delta of it is
    // written as deltaChunk writes it: the head, the choice's JSON, `]}` and the blank line.
    plainFrame() {
      if (frame === null && st.head !== "" && st.rolesSent.has(0)) frame = { head: utf8.encode(st.head), tail: utf8.encode("]}\n\n") };
      return frame;
    },
    transform(ev, c) {
      if (ev.type === "delta") {
        if (!st.head) {
          st.id = ev.id;
          st.created = ev.created;
          st.model = ev.model;
          const json = JSON.stringify(chunk([]));
          st.head = `data: ${json.slice(0, json.length - "]}".length)}`;
        }
        const delta = ev.delta;
        if (!st.rolesSent.has(ev.choiceIndex)) {
          st.rolesSent.add(ev.choiceIndex);
          // The first chunk of each choice carries the role (and content "" when it has none yet).
          if (!delta.role) c.enqueue(deltaChunk(ev.choiceIndex, ROLE_DELTA, null, null));
        }
        if (isEmptyDelta(delta) && ev.finishReason === null) return;
        c.enqueue(deltaChunk(ev.choiceIndex, ev.deltaJson ?? JSON.stringify(delta), ev.logprobs ?? null, ev.finishReason));
        return;
      }
      if (ev.type === "done") {
        tail(c, ev.usage, ev.routing);
      } else {
        // Failed after the first byte: no fallback is possible any more; say so in-band, then end.
        tail(c, null, ev.routing);
        write(c, { error: ev.error });
      }
      c.enqueue(DONE);
    },
  };
}

const ROLE_DELTA = JSON.stringify({ role: "assistant", content: "" });
