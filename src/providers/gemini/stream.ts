// Gemini streamGenerateContent?alt=sse events → internal stream events. Every event is a whole
// GenerateContentResponse carrying the next slice of each candidate: the first slice of a candidate
// opens it with a role delta, thought parts become reasoning fragments (stream-thoughts.ts), text parts
// content deltas, each functionCall part arrives complete and becomes one tool call (id synthesized),
// grounding becomes `extra.annotations`, a finishReason closes the candidate.
// usageMetadata is cumulative on every event; the last one is emitted once, in flush.
import type { ChunkDelta, DeltaEvent, FinishReason, StreamEvent, UpstreamTarget } from "../types";
import type { SseEvent } from "../sse-decode";
import { isRecord } from "../content-parts";
import { classifyStatus, malformedStreamError, tryParseJson } from "../upstream-errors";
import { citationKey, citationsOf } from "./citations";
import { newThoughtState, partDeltas, type ThoughtState } from "./stream-thoughts";
import {
  geminiError,
  geminiFinishReason,
  geminiUsage,
  idPrefix,
  toolCallId,
  type GeminiCandidateWire,
  type GeminiResponseWire,
  type GeminiUsageWire,
} from "./wire";

interface CandidateState extends ThoughtState {
  finished: boolean;
  /** The answer text so far: grounding offsets are bytes into it. */
  text: string;
  /** Citations already sent (later chunks may repeat the grounding). */
  cited: Set<string>;
}

interface GeminiStreamState {
  id: string | null;
  prefix: string | null;
  model: string;
  created: number;
  candidates: Map<number, CandidateState>;
  usageWire: GeminiUsageWire | undefined;
  failed: boolean;
  /** The key the attempt sent: an error event never carries it on (upstream-errors.ts). */
  credential: string | null;
}

export function geminiStreamTransformer(target: UpstreamTarget): Transformer<SseEvent, StreamEvent> {
  const state: GeminiStreamState = {
    id: null,
    prefix: null,
    model: target.providerModelId,
    created: Math.floor(Date.now() / 1000),
    candidates: new Map(),
    usageWire: undefined,
    failed: false,
    credential: target.apiKey,
  };
  return {
    start() {},
    transform(event, controller) {
      if (state.failed) return;
      const data = tryParseJson(event.data);
      if (!isRecord(data)) {
        state.failed = true;
        controller.enqueue({ type: "error", error: malformedStreamError("not a JSON object") });
        return;
      }
      const error = geminiError(data);
      if (error) {
        state.failed = true;
        const status = error.code !== undefined && error.code >= 400 && error.code < 600 ? error.code : 500;
        controller.enqueue({
          type: "error",
          error: classifyStatus(status, error.message ?? "Upstream stream failed", new Headers(), state.credential),
        });
        return;
      }
      for (const out of translateResponse(state, data as GeminiResponseWire)) controller.enqueue(out);
    },
    flush(controller) {
      controller.enqueue({ type: "usage", usage: geminiUsage(state.usageWire) });
    },
  };
}

function translateResponse(state: GeminiStreamState, wire: GeminiResponseWire): StreamEvent[] {
  if (state.prefix === null) {
    state.prefix = idPrefix(wire.responseId);
    state.id = wire.responseId ?? `gen-${state.prefix}`;
  }
  if (wire.modelVersion) state.model = wire.modelVersion;
  if (wire.usageMetadata) state.usageWire = wire.usageMetadata;
  const out = (wire.candidates ?? []).flatMap((candidate, position) => translateCandidate(state, candidate, position));
  if ((wire.candidates ?? []).length === 0 && wire.promptFeedback?.blockReason && !state.candidates.has(0)) {
    state.candidates.set(0, newCandidate(true));
    out.push(deltaEvent(state, 0, { role: "assistant", content: "" }, "content_filter"));
  }
  return out;
}

function translateCandidate(state: GeminiStreamState, candidate: GeminiCandidateWire, position: number): StreamEvent[] {
  const index = candidate.index ?? position;
  const out: StreamEvent[] = [];
  let cs = state.candidates.get(index);
  if (!cs) {
    cs = newCandidate(false);
    state.candidates.set(index, cs);
    out.push(deltaEvent(state, index, { role: "assistant", content: "" }));
  }
  if (cs.finished) return out;
  const prefix = state.prefix ?? "";
  for (const delta of partDeltas(cs, candidate.content?.parts ?? [], (ordinal) => toolCallId(prefix, index, ordinal))) {
    if (typeof delta.content === "string") cs.text += delta.content;
    out.push(deltaEvent(state, index, delta));
  }
  if (candidate.groundingMetadata || candidate.citationMetadata) {
    const fresh = citationsOf(candidate, cs.text).filter((c) => !cs.cited.has(citationKey(c)));
    for (const c of fresh) cs.cited.add(citationKey(c));
    if (fresh.length > 0) out.push(deltaEvent(state, index, { extra: { annotations: fresh } }));
  }
  if (candidate.finishReason) {
    cs.finished = true;
    out.push(deltaEvent(state, index, {}, geminiFinishReason(candidate.finishReason, cs.toolCalls > 0)));
  }
  return out;
}

function newCandidate(finished: boolean): CandidateState {
  return { ...newThoughtState(), finished, text: "", cited: new Set() };
}

function deltaEvent(
  state: GeminiStreamState,
  choiceIndex: number,
  delta: ChunkDelta,
  finishReason: FinishReason | null = null,
): DeltaEvent {
  return { type: "delta", id: state.id ?? "", created: state.created, model: state.model, choiceIndex, delta, finishReason };
}

/** The same transformer as a TransformStream (for pipeThrough). */
export function geminiStreamTranslator(target: UpstreamTarget): TransformStream<SseEvent, StreamEvent> {
  return new TransformStream(geminiStreamTransformer(target));
}
