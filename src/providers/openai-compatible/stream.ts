// OpenAI-compatible SSE events → internal stream events. Chunks map one to one onto delta events;
// usage (the last chunk with `choices: []`, or Groq's `x_groq.usage`) is held and emitted once, at
// `[DONE]` or in flush when a server ends without it.
import type { ChunkDelta, DeltaEvent, PlainChoiceReader, StreamEvent, UpstreamTarget, Usage } from "../types";
import type { SseEvent } from "../sse-decode";
import { isRecord } from "../content-parts";
import { isEmptyDelta } from "../delta";
import { zeroUsage } from "../usage";
import { classifyStatus, malformedStreamError, tryParseJson } from "../upstream-errors";
import { openAIFinishReason } from "./response";
import { PlainDeltaReader } from "./plain-delta";
import { openAIErrorMessage, openAIUsage, type OpenAIChoiceWire, type OpenAIResponseWire } from "./wire";

/**
 * `asSent`: a chat client's own stream (native.ts) keeps each delta's unnamed fields exactly as they came;
 * a translated one also gets DeepSeek's reasoning text as a reasoning fragment (withReasoningFragment).
 */
export function openAIStreamTransformer(target: UpstreamTarget, asSent = false): Transformer<SseEvent, StreamEvent> & PlainChoiceReader {
  return new OpenAIStream(target, asSent);
}

// A class, not an object of closures: a stream makes one, and its methods are shared (bench/NOTES.md,
// 2026-11-28: closures per stream).
class OpenAIStream implements Transformer<SseEvent, StreamEvent>, PlainChoiceReader {
  private usage: Usage | null = null;
  private usageSent = false;
  /** The last delta read in full: what a plain content delta takes its id, created and model from. */
  private last: DeltaEvent | null = null;
  /** After an error event nothing else from upstream is trusted. */
  private failed = false;
  private readonly plainDeltas = new PlainDeltaReader();

  constructor(
    private readonly target: UpstreamTarget,
    private readonly asSent: boolean,
  ) {}

  // The pass-through (PlainChoiceReader): only where transform would read the event as a plain delta.
  plainChoice(bytes: Uint8Array, start: number, end: number): number {
    return this.failed || this.usageSent || this.last === null ? -1 : this.plainDeltas.plainChoice(bytes, start, end);
  }

  get choiceEnd(): number {
    return this.plainDeltas.choiceEnd;
  }

  transform(event: SseEvent, controller: TransformStreamDefaultController<StreamEvent>): void {
    if (this.failed || this.usageSent) return;
    if (event.data === "[DONE]") return this.sendUsage(controller);
    const plain = this.last && this.plainDeltas.read(event.data, this.last);
    if (plain) return controller.enqueue(plain);
    const chunk = tryParseJson(event.data);
    if (!isRecord(chunk)) {
      this.failed = true;
      controller.enqueue({ type: "error", error: malformedStreamError("not a JSON object") });
      return;
    }
    const wire = chunk as OpenAIResponseWire;
    if (wire.error !== undefined && wire.error !== null) {
      this.failed = true;
      controller.enqueue({ type: "error", error: midStreamError(wire, this.target.apiKey) });
      return;
    }
    const usage = wire.usage ?? wire.x_groq?.usage;
    if (usage) this.usage = openAIUsage(usage);
    for (const choice of wire.choices ?? []) {
      const delta = toDelta(choice);
      if (delta.extra && !this.asSent) withReasoningFragment(delta.extra);
      const finishReason = openAIFinishReason(choice.finish_reason);
      if (isEmptyDelta(delta) && finishReason === null && choice.logprobs == null) continue;
      const out: DeltaEvent = {
        type: "delta",
        id: wire.id ?? "",
        created: typeof wire.created === "number" ? wire.created : Math.floor(Date.now() / 1000),
        model: wire.model ?? this.target.providerModelId,
        choiceIndex: choice.index ?? 0,
        delta,
        finishReason,
      };
      if (choice.logprobs != null) out.logprobs = choice.logprobs;
      this.last = out;
      controller.enqueue(out);
    }
    if (this.last !== null) this.plainDeltas.learn(event.data);
  }

  flush(controller: TransformStreamDefaultController<StreamEvent>): void {
    this.sendUsage(controller);
  }

  private sendUsage(controller: TransformStreamDefaultController<StreamEvent>): void {
    if (this.usageSent) return;
    this.usageSent = true;
    controller.enqueue({ type: "usage", usage: this.usage ?? zeroUsage() });
  }
}

/** The delta fields read into the chat model; any other the upstream sends travels as `extra`. */
const NAMED_DELTA_FIELDS = new Set(["role", "content", "refusal", "tool_calls"]);

function toDelta(choice: OpenAIChoiceWire): ChunkDelta {
  const wire = choice.delta ?? {};
  const delta: ChunkDelta = {};
  for (const key in wire) {
    const value = (wire as Record<string, unknown>)[key];
    if (NAMED_DELTA_FIELDS.has(key) || value === null || value === undefined) continue;
    (delta.extra ??= {})[key] = value;
  }
  if (wire.role === "assistant") delta.role = "assistant";
  if (wire.content !== undefined) delta.content = wire.content;
  if (wire.refusal !== undefined && wire.refusal !== null) delta.refusal = wire.refusal;
  if (Array.isArray(wire.tool_calls) && wire.tool_calls.length > 0) {
    delta.tool_calls = wire.tool_calls.map((call, position) => {
      const out: NonNullable<ChunkDelta["tool_calls"]>[number] = { index: call.index ?? position };
      if (call.id) out.id = call.id;
      if (call.id || call.type) out.type = "function";
      if (call.function) {
        out.function = {};
        if (call.function.name !== undefined) out.function.name = call.function.name;
        if (call.function.arguments !== undefined) out.function.arguments = call.function.arguments;
      }
      return out;
    });
  }
  return delta;
}

/**
 * DeepSeek's `reasoning_content` (or OpenRouter's `reasoning`) text, also as the one reasoning entry it
 * is (`extra.reasoning_details`, providers/reasoning.ts), so that every client encoder reads one
 * convention; an upstream that sends reasoning_details itself is read as it sent them.
 */
function withReasoningFragment(extra: Record<string, unknown>): void {
  if (extra.reasoning_details !== undefined) return;
  const text = typeof extra.reasoning_content === "string" ? extra.reasoning_content : extra.reasoning;
  if (typeof text !== "string" || text === "") return;
  extra.reasoning_content ??= text;
  extra.reasoning_details = [{ type: "reasoning.text", format: "unknown", index: 0, text }];
}

/** OpenRouter and others send `{"error": {"code": 502, "message": …}}` as a chunk after a 200. */
function midStreamError(wire: OpenAIResponseWire, credential: string | null) {
  const code = isRecord(wire.error) ? wire.error.code : undefined;
  const status = typeof code === "number" && code >= 400 && code < 600 ? code : 502;
  return classifyStatus(status, openAIErrorMessage(wire) ?? "Upstream stream failed", new Headers(), credential);
}

/** The same transformer as a TransformStream (for pipeThrough). */
export function openAIStreamTranslator(target: UpstreamTarget, asSent = false): TransformStream<SseEvent, StreamEvent> {
  return new TransformStream(openAIStreamTransformer(target, asSent));
}
