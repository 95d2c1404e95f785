// Test helpers: run bytes through an adapter's stream transform and collect the events.
import type { AdapterName } from "../../../src/catalog/types";
import type { StreamEvent, UpstreamTarget } from "../../../src/providers/types";
import { adapterFor } from "../../../src/providers/registry";
import { UpstreamEvents } from "../../../src/inference/upstream-events";
import { answerOf } from "../../../src/platform/upstream-answer";

export function target(adapter: AdapterName, over: Partial<UpstreamTarget> = {}): UpstreamTarget {
  const baseUrl = adapter === "openai" ? "https://api.example.test/v1" : "https://api.example.test";
  return {
    providerId: `p-${adapter}`,
    adapter,
    baseUrl,
    apiKey: "sk-test-key-123456",
    providerModelId: "model-x",
    maxOutputTokens: 4096,
    ...over,
  };
}

export function bytesStream(pieces: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(typeof piece === "string" ? encoder.encode(piece) : piece);
      controller.close();
    },
  });
}

export async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) out.push(next.value);
  return out;
}

/** Bytes through the pipeline's production reader (inference/upstream-events.ts) with this adapter. */
export async function runStream(
  adapter: AdapterName,
  pieces: (string | Uint8Array)[],
  t: UpstreamTarget = target(adapter),
): Promise<StreamEvent[]> {
  const events = new UpstreamEvents(answerOf(new Response(bytesStream(pieces))), adapterFor(adapter), t, new AbortController());
  const out: StreamEvent[] = [];
  for (;;) {
    const r = await events.next();
    if (r.type === "end") return out;
    if (r.type === "timeout" || r.type === "broken") throw new Error(`stream ${r.type}`);
    out.push(r);
  }
}

/** The same bytes through the adapter's TransformStream form (streamTransform), for pipeThrough users. */
export async function runStreamPiped(
  adapter: AdapterName,
  pieces: (string | Uint8Array)[],
  t: UpstreamTarget = target(adapter),
): Promise<StreamEvent[]> {
  return collect(bytesStream(pieces).pipeThrough(adapterFor(adapter).streamTransform(t)));
}

/** `created` is the translator's clock for providers that send none; equal runs may straddle a second. */
export function withoutClock(events: StreamEvent[]): StreamEvent[] {
  return events.map((e) => (e.type === "delta" ? { ...e, created: 0 } : e));
}

/** Reassembles deltas the way a client would: content and each tool call's arguments concatenated. */
export function assemble(events: StreamEvent[]) {
  let content = "";
  let finishReason: string | null = null;
  const tools: { id?: string; name?: string; arguments: string }[] = [];
  for (const e of events) {
    if (e.type !== "delta") continue;
    if (typeof e.delta.content === "string") content += e.delta.content;
    for (const call of e.delta.tool_calls ?? []) {
      const slot = (tools[call.index] ??= { arguments: "" });
      if (call.id) slot.id = call.id;
      if (call.function?.name) slot.name = call.function.name;
      if (call.function?.arguments) slot.arguments += call.function.arguments;
    }
    if (e.finishReason) finishReason = e.finishReason;
  }
  return {
    content,
    finishReason,
    tools,
    usage: events.filter((e) => e.type === "usage"),
    errors: events.filter((e) => e.type === "error"),
  };
}
