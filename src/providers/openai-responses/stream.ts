// Responses API streaming events → internal stream events.
//   response.created                        → role delta (and the response's id, model, time)
//   response.output_text.delta              → content; response.refusal.delta → refusal
//   response.output_item.added function_call → a tool call's id (call_id) and name
//   response.function_call_arguments.delta  → the tool call's arguments
//   response.output_item.done function_call  → the arguments, only if no delta carried them
//   reasoning summary / text deltas, a reasoning item's output_item.done → extra.reasoning_details
//                                              (stream-reasoning.ts)
//   response.output_text.annotation.added   → extra.annotations (annotations.ts)
//   response.completed / response.incomplete → the finish reason, then usage, once
//   response.failed / error                 → error event; everything else (in_progress,
//                                              content_part.*, *.done…) → nothing
// Tool calls are numbered in order of appearance, independent of the output item indices (a
// reasoning item usually takes output_index 0).
import type { ChunkDelta, DeltaEvent, FinishReason, StreamEvent, UpstreamTarget, Usage } from "../types";
import type { SseEvent } from "../sse-decode";
import { isRecord } from "../content-parts";
import { zeroUsage } from "../usage";
import { classifyStatus, malformedStreamError, tryParseJson } from "../upstream-errors";
import { chatAnnotation } from "./annotations";
import { isReasoningItem, ReasoningStream } from "./stream-reasoning";
import {
  responsesError,
  responsesErrorStatus,
  responsesFinishReason,
  responsesUsage,
  type ResponseObjectWire,
  type ResponsesOutputItemWire,
} from "./wire";

interface ResponsesStreamState {
  id: string;
  model: string;
  created: number;
  /** Output item index → tool_calls index. */
  toolIndexByOutput: Map<number, number>;
  /** Output item id → tool_calls index (for servers that omit output_index). */
  toolIndexByItem: Map<string, number>;
  toolCount: number;
  /** Tool calls whose arguments have arrived in deltas. */
  argumentsStreamed: Set<number>;
  /** From a failed response, for the usage sent in flush. */
  usage: Usage | null;
  usageSent: boolean;
  /** After an error nothing else from upstream is trusted. */
  failed: boolean;
  /** The key the attempt sent: an error event never carries it on (upstream-errors.ts). */
  credential: string | null;
  reasoning: ReasoningStream;
  /** Content characters sent so far, and where each output_text part (`item:content_index`) began in them. */
  contentLength: number;
  partStart: Map<string, number>;
  /** The part the last text event belonged to. */
  part: { item: unknown; index: unknown; start: number } | null;
}

export function responsesStreamTransformer(target: UpstreamTarget): Transformer<SseEvent, StreamEvent> {
  const state: ResponsesStreamState = {
    id: "",
    model: target.providerModelId,
    created: Math.floor(Date.now() / 1000),
    toolIndexByOutput: new Map(),
    toolIndexByItem: new Map(),
    toolCount: 0,
    argumentsStreamed: new Set(),
    usage: null,
    usageSent: false,
    failed: false,
    credential: target.apiKey,
    reasoning: new ReasoningStream(),
    contentLength: 0,
    partStart: new Map(),
    part: null,
  };
  return {
    start() {},
    transform(event, controller) {
      if (state.failed || state.usageSent) return;
      const data = tryParseJson(event.data);
      if (!isRecord(data)) {
        state.failed = true;
        controller.enqueue({ type: "error", error: malformedStreamError("not a Responses event") });
        return;
      }
      const type = typeof data.type === "string" ? data.type : event.event;
      for (const out of translateEvent(state, type, data)) controller.enqueue(out);
    },
    flush(controller) {
      if (!state.usageSent) controller.enqueue(usageEvent(state, state.usage ?? zeroUsage()));
    },
  };
}

function usageEvent(state: ResponsesStreamState, usage: Usage): StreamEvent {
  state.usageSent = true;
  return { type: "usage", usage };
}

function translateEvent(state: ResponsesStreamState, type: string | undefined, data: Record<string, unknown>): StreamEvent[] {
  const delta = (d: ChunkDelta, finishReason: FinishReason | null = null): DeltaEvent => ({
    type: "delta",
    id: state.id,
    created: state.created,
    model: state.model,
    choiceIndex: 0,
    delta: d,
    finishReason,
  });
  switch (type) {
    case "response.created":
      adoptResponse(state, data.response);
      return [delta({ role: "assistant", content: "" })];
    case "response.output_text.delta": {
      if (typeof data.delta !== "string" || data.delta === "") return [];
      partStart(state, data);
      state.contentLength += data.delta.length;
      return [delta({ content: data.delta })];
    }
    case "response.output_text.annotation.added":
      return data.annotation === undefined
        ? []
        : [delta({ extra: { annotations: [chatAnnotation(data.annotation, partStart(state, data))] } })];
    case "response.reasoning_summary_text.delta":
      return state.reasoning.delta("summary", data).map((d) => delta(d));
    case "response.reasoning_text.delta":
      return state.reasoning.delta("content", data).map((d) => delta(d));
    case "response.refusal.delta":
      return typeof data.delta === "string" && data.delta !== "" ? [delta({ refusal: data.delta })] : [];
    case "response.output_item.added":
      return functionCallStart(state, data).map((d) => delta(d));
    case "response.function_call_arguments.delta": {
      const toolIndex = toolIndexOf(state, data);
      if (toolIndex === undefined || typeof data.delta !== "string" || data.delta === "") return [];
      state.argumentsStreamed.add(toolIndex);
      return [delta({ tool_calls: [{ index: toolIndex, function: { arguments: data.delta } }] })];
    }
    case "response.output_item.done":
      return (isReasoningItem(data) ? state.reasoning.done(data) : functionCallEnd(state, data)).map((d) => delta(d));
    case "response.completed":
    case "response.incomplete": {
      const response = adoptResponse(state, data.response);
      // The event type says how it ended even when a server leaves the response's status out.
      const status = response.status ?? (type === "response.incomplete" ? "incomplete" : "completed");
      const finish = responsesFinishReason({ ...response, status }, state.toolCount > 0);
      return [delta({}, finish), usageEvent(state, responsesUsage(response.usage))];
    }
    case "response.failed": {
      state.failed = true;
      const response = adoptResponse(state, data.response);
      if (response.usage) state.usage = responsesUsage(response.usage);
      return [errorEvent(state, response.error)];
    }
    case "error":
      state.failed = true;
      return [errorEvent(state, responsesError(data))];
    default:
      return [];
  }
}

/** Where an output_text part began in the message's content (the first time it is seen: now). */
function partStart(state: ResponsesStreamState, data: Record<string, unknown>): number {
  const item = data.item_id ?? data.output_index;
  const part = state.part;
  // Most events belong to the part before them: no key is built for those.
  if (part !== null && part.item === item && part.index === data.content_index) return part.start;
  const key = `${String(item)}:${String(data.content_index ?? 0)}`;
  let start = state.partStart.get(key);
  if (start === undefined) state.partStart.set(key, (start = state.contentLength));
  state.part = { item, index: data.content_index, start };
  return start;
}

/** Takes id, model and creation time from a lifecycle event's response; returns it (or {}). */
function adoptResponse(state: ResponsesStreamState, value: unknown): ResponseObjectWire {
  if (!isRecord(value)) return {};
  const response = value as ResponseObjectWire;
  if (typeof response.id === "string") state.id = response.id;
  if (typeof response.model === "string") state.model = response.model;
  if (typeof response.created_at === "number") state.created = Math.floor(response.created_at);
  return response;
}

function functionCallItem(data: Record<string, unknown>): ResponsesOutputItemWire | undefined {
  return isRecord(data.item) && data.item.type === "function_call" ? (data.item as ResponsesOutputItemWire) : undefined;
}

function toolIndexOf(state: ResponsesStreamState, data: Record<string, unknown>): number | undefined {
  if (typeof data.output_index === "number" && state.toolIndexByOutput.has(data.output_index))
    return state.toolIndexByOutput.get(data.output_index);
  const itemId =
    typeof data.item_id === "string" ? data.item_id : isRecord(data.item) && typeof data.item.id === "string" ? data.item.id : undefined;
  return itemId === undefined ? undefined : state.toolIndexByItem.get(itemId);
}

function functionCallStart(state: ResponsesStreamState, data: Record<string, unknown>): ChunkDelta[] {
  const item = functionCallItem(data);
  if (!item || toolIndexOf(state, data) !== undefined) return [];
  const toolIndex = state.toolCount++;
  if (typeof data.output_index === "number") state.toolIndexByOutput.set(data.output_index, toolIndex);
  if (typeof item.id === "string") state.toolIndexByItem.set(item.id, toolIndex);
  const id = item.call_id ?? item.id ?? `call_${toolIndex}`;
  return [{ tool_calls: [{ index: toolIndex, id, type: "function", function: { name: item.name ?? "", arguments: "" } }] }];
}

/** Servers that send a call whole (no `added`, or no argument deltas) still deliver it once. */
function functionCallEnd(state: ResponsesStreamState, data: Record<string, unknown>): ChunkDelta[] {
  const item = functionCallItem(data);
  if (!item) return [];
  const out = functionCallStart(state, data);
  const toolIndex = toolIndexOf(state, data);
  if (toolIndex === undefined || state.argumentsStreamed.has(toolIndex) || !item.arguments) return out;
  state.argumentsStreamed.add(toolIndex);
  return [...out, { tool_calls: [{ index: toolIndex, function: { arguments: item.arguments } }] }];
}

function errorEvent(state: ResponsesStreamState, error: { code?: string | null; message?: string } | null | undefined): StreamEvent {
  const status = responsesErrorStatus(error?.code);
  return { type: "error", error: classifyStatus(status, error?.message ?? "Upstream stream failed", new Headers(), state.credential) };
}

/** The same transformer as a TransformStream (for pipeThrough). */
export function responsesStreamTranslator(target: UpstreamTarget): TransformStream<SseEvent, StreamEvent> {
  return new TransformStream(responsesStreamTransformer(target));
}
