// The Responses stream encoder's state (stream.ts, stream-reasoning.ts): the output built so far, the
// one item open at a time, and the event writer that numbers every event.
import type { ReasoningDetail } from "../../providers/reasoning";
import type { FinishReason } from "../../providers/types";
import type { CustomToolCallOutputItem, FunctionCallOutputItem, MessageOutputItem, OutputItem } from "./render";
import type { ReasoningOutputItem } from "./reasoning-items";
import type { ResponsesEcho } from "./to-chat";

export type PartKind = "output_text" | "refusal";

/** The reasoning item open in the stream: which entries it holds and which part takes text now. */
export interface OpenReasoning {
  kind: "reasoning";
  index: number;
  item: ReasoningOutputItem;
  /** Whether the item is the Responses API's own (else another family's run, carried). */
  own: boolean;
  part: { kind: "summary" | "content"; index: number; entry: number } | null;
}

/** A tool call's item and the arguments streamed for it. */
export interface CallState {
  item: FunctionCallOutputItem | CustomToolCallOutputItem;
  args: string;
}

export type OpenItem =
  | { kind: "message"; part: PartKind; index: number; item: MessageOutputItem }
  | { kind: "call"; index: number; call: CallState }
  | OpenReasoning;

export interface StreamState {
  seq: number;
  id: string;
  createdAt: number;
  model: string;
  echo: ResponsesEcho;
  output: OutputItem[];
  open: OpenItem | null;
  /** Tool-call items by the chat tool_call index, for argument deltas. */
  calls: Map<number, CallState>;
  /** The message's reasoning entries as the fragments built them (mergeFragment). */
  details: ReasoningDetail[];
  /** For each reasoning item: whether it is the Responses API's own, and the entries (by index) it holds. */
  reasoning: Map<ReasoningOutputItem, { own: boolean; entries: number[] }>;
  /** Entries with no text that came after the answer had started (a signature for a call): their items close the output. */
  late: number[];
  finish: FinishReason | null;
  terminated: boolean;
}

export type Controller = TransformStreamDefaultController<string>;

export function emit(state: StreamState, c: Controller, type: string, fields: Record<string, unknown>): void {
  const data = { type, sequence_number: state.seq++, ...fields };
  c.enqueue(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

export const snapshot = <T>(value: T): T => structuredClone(value);
