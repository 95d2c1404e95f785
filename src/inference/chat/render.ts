// The chat completions wire format: the JSON object and the SSE chunk sequence of API document §4.1
// (role chunk, deltas, finish chunk, usage chunk, routing_metadata chunk, [DONE]). Shapes follow
// OpenAI's CreateChatCompletionResponse / CreateChatCompletionStreamResponse schemas.
import type { ChunkDelta, PlainChoiceFramer, Usage } from "../../providers/types";
import { isEmptyDelta } from "../../providers/delta";
import type { PipelineEvent, PipelineResult, RoutingMetadata } from "../types";

export function usageJson(u: Usage) {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    // cache_write_tokens is OpenRouter's name for the prompt tokens written to the provider's cache.
    prompt_tokens_details: { cached_tokens: u.cachedTokens, cache_write_tokens: u.cacheWriteTokens },
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

type Sink = TransformStreamDefaultController<string>;

/** PipelineEvents → SSE text (the response sink encodes it). Each delta is written as it arrives; usage and routing once, at the end. */
export function chatSseTransformer(): Transformer<PipelineEvent, string> & PlainChoiceFramer {
  return new ChatSse();
}

// A class, not an object of closures: a stream makes one, and its methods are shared (bench/NOTES.md,
// 2026-11-28: closures per stream).
class ChatSse implements Transformer<PipelineEvent, string>, PlainChoiceFramer {
  private id = "";
  private created = 0;
  private model = "";
  /** `data: {"id":…,"choices":[` — the same for every delta chunk of the stream, so built once. */
  private head = "";
  private readonly rolesSent = new Set<number>();
  private frame: { head: Uint8Array; tail: Uint8Array } | null = null;

  // The pass-through (providers/types.ts): once choice 0 has had its role, a plain delta of it is
  // written as deltaChunk writes it: the head, the choice's JSON, `]}` and the blank line.
  plainFrame() {
    if (this.frame === null && this.head !== "" && this.rolesSent.has(0))
      this.frame = { head: utf8.encode(this.head), tail: utf8.encode("]}\n\n") };
    return this.frame;
  }

  transform(ev: PipelineEvent, c: Sink): void {
    if (ev.type === "raw") return c.enqueue(ev.text); // a native event (no chat route sends them)
    if (ev.type === "delta") {
      if (!this.head) {
        this.id = ev.id;
        this.created = ev.created;
        this.model = ev.model;
        const json = JSON.stringify(this.chunk([]));
        this.head = `data: ${json.slice(0, json.length - "]}".length)}`;
      }
      const delta = ev.delta;
      if (!this.rolesSent.has(ev.choiceIndex)) {
        this.rolesSent.add(ev.choiceIndex);
        // The first chunk of each choice carries the role (and content "" when it has none yet).
        if (!delta.role) c.enqueue(this.deltaChunk(ev.choiceIndex, ROLE_DELTA, null, null));
      }
      if (isEmptyDelta(delta) && ev.finishReason === null) return;
      c.enqueue(this.deltaChunk(ev.choiceIndex, ev.deltaJson ?? deltaText(delta), ev.logprobs ?? null, ev.finishReason));
      return;
    }
    if (ev.type === "done") {
      this.tail(c, ev.usage, ev.routing);
    } else {
      // Failed after the first byte: no fallback is possible any more; say so in-band, then end.
      this.tail(c, null, ev.routing);
      c.enqueue(`data: ${JSON.stringify({ error: ev.error })}\n\n`);
    }
    c.enqueue(DONE);
  }

  private chunk(choices: unknown[]) {
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.model,
      system_fingerprint: "switchyard",
      choices,
    };
  }

  // A delta chunk is the stream's head plus one choice serialised in place: the same text as
  // JSON.stringify(chunk([choice])), without a chunk, an array and a choice object per delta.
  private deltaChunk(index: number, deltaJson: string, logprobs: unknown, finishReason: string | null): string {
    return `${this.head}{"index":${index},"delta":${deltaJson},"logprobs":${logprobs === null ? "null" : JSON.stringify(logprobs)},"finish_reason":${finishReason === null ? "null" : JSON.stringify(finishReason)}}]}\n\n`;
  }

  // The usage and routing chunks are a chunk with no choices and one more field: the head built once,
  // `]`, the field, `}` — the text JSON.stringify({ ...chunk([]), [name]: value }) gives, without
  // serialising the envelope again (before any delta there is no head: then it is serialised whole).
  private fieldChunk(name: string, value: unknown): string {
    return this.head !== ""
      ? `${this.head}],"${name}":${JSON.stringify(value)}}\n\n`
      : `data: ${JSON.stringify({ ...this.chunk([]), [name]: value })}\n\n`;
  }

  private tail(c: Sink, usage: Usage | null, routing: RoutingMetadata | undefined): void {
    if (usage) c.enqueue(this.fieldChunk("usage", usageJson(usage)));
    if (routing) c.enqueue(this.fieldChunk("routing_metadata", routing));
  }
}

const ROLE_DELTA = JSON.stringify({ role: "assistant", content: "" });

/** A delta as the chat wire writes it: its named fields, then the ones it came with that the chat model has no name for. */
function deltaText(delta: ChunkDelta): string {
  if (delta.extra === undefined) return JSON.stringify(delta);
  const { extra, ...named } = delta;
  return JSON.stringify({ ...named, ...extra });
}
