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

interface OpenAIStreamState {
  usage: Usage | null;
  usageSent: boolean;
  /** The last delta read in full: what a plain content delta takes its id, created and model from. */
  last: DeltaEvent | null;
  /** After an error event nothing else from upstream is trusted. */
  failed: boolean;
}

export function openAIStreamTransformer(target: UpstreamTarget): Transformer<SseEvent, StreamEvent> & PlainChoiceReader {
  const state: OpenAIStreamState = { usage: null, usageSent: false, last: null, failed: false };
  const plainDeltas = new PlainDeltaReader();
  const sendUsage = (controller: TransformStreamDefaultController<StreamEvent>) => {
    if (state.usageSent) return;
    state.usageSent = true;
    controller.enqueue({ type: "usage", usage: state.usage ?? zeroUsage() });
  };
  return {
    start() {},
    // The pass-through (PlainChoiceReader): only where transform would read the event as a plain delta.
    plainChoice(bytes, start, end) {
      return state.failed || state.usageSent || state.last === null ? -1 : plainDeltas.plainChoice(bytes, start, end);
    },
    get choiceEnd() {
      return plainDeltas.choiceEnd;
    },
    transform(event, controller) {
      if (state.failed || state.usageSent) return;
      if (event.data === "[DONE]") return sendUsage(controller);
      const plain = state.last && plainDeltas.read(event.data, state.last);
      if (plain) return controller.enqueue(plain);
      const chunk = tryParseJson(event.data);
      if (!isRecord(chunk)) {
        state.failed = true;
        controller.enqueue({ type: "error", error: malformedStreamError("not a JSON object") });
        return;
      }
      const wire = chunk as OpenAIResponseWire;
      if (wire.error !== undefined && wire.error !== null) {
        state.failed = true;
        controller.enqueue({ type: "error", error: midStreamError(wire) });
        return;
      }
      const usage = wire.usage ?? wire.x_groq?.usage;
      if (usage) state.usage = openAIUsage(usage);
      for (const choice of wire.choices ?? []) {
        const delta = toDelta(choice);
        const finishReason = openAIFinishReason(choice.finish_reason);
        if (isEmptyDelta(delta) && finishReason === null && choice.logprobs == null) continue;
        const out: DeltaEvent = {
          type: "delta",
          id: wire.id ?? "",
          created: typeof wire.created === "number" ? wire.created : Math.floor(Date.now() / 1000),
          model: wire.model ?? target.providerModelId,
          choiceIndex: choice.index ?? 0,
          delta,
          finishReason,
        };
        if (choice.logprobs != null) out.logprobs = choice.logprobs;
        state.last = out;
        controller.enqueue(out);
      }
    },
    flush(controller) {
      sendUsage(controller);
    },
  };
}

function toDelta(choice: OpenAIChoiceWire): ChunkDelta {
  const wire = choice.delta ?? {};
  const delta: ChunkDelta = {};
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

/** OpenRouter and others send `{"error": {"code": 502, "message": …}}` as a chunk after a 200. */
function midStreamError(wire: OpenAIResponseWire) {
  const code = isRecord(wire.error) ? wire.error.code : undefined;
  const status = typeof code === "number" && code >= 400 && code < 600 ? code : 502;
  return classifyStatus(status, openAIErrorMessage(wire) ?? "Upstream stream failed", new Headers());
}

/** The same transformer as a TransformStream (for pipeThrough). */
export function openAIStreamTranslator(target: UpstreamTarget): TransformStream<SseEvent, StreamEvent> {
  return new TransformStream(openAIStreamTransformer(target));
}
