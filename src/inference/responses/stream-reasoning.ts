// Reasoning in the Responses stream: fragments (delta.extra.reasoning_details, issue 55 convention 3)
// become reasoning items as OpenAI streams them: output_item.added with an empty summary, then per
// summary part reasoning_summary_part.added, reasoning_summary_text.delta/.done and
// reasoning_summary_part.done, per reasoning text content_part.added, reasoning_text.delta/.done and
// content_part.done, and output_item.done with the finished item (its encrypted_content included).
import { fragmentsOf, mergeFragment, type ReasoningFragment } from "../../providers/reasoning";
import { groupReasoning, reasoningItem, reasoningItemId, startsNewItem, type ReasoningOutputItem } from "./reasoning-items";
import { wantsEncrypted } from "./render";
import { emit, snapshot, type Controller, type OpenReasoning, type StreamState } from "./stream-state";

/** A delta's reasoning fragments; a bare `reasoning_content` (DeepSeek's field) is text of entry 0, of no provider's family. */
export function deltaFragments(extra: Record<string, unknown> | undefined): ReasoningFragment[] {
  const fragments = fragmentsOf(extra);
  if (fragments.length > 0) return fragments;
  const text = extra?.reasoning_content;
  return typeof text === "string" && text !== "" ? [{ type: "reasoning.text", format: "unknown", index: 0, text }] : [];
}

/** Sets an item's summary, content and encrypted_content from its entries, as render would (the id stays). */
export function finishReasoningItem(state: StreamState, item: ReasoningOutputItem): void {
  const group = state.reasoning.get(item)!;
  const entries = group.entries.map((i) => state.details[i]!);
  const done = reasoningItem({ own: group.own, entries }, wantsEncrypted(state.echo));
  item.summary = done.summary;
  if (done.content) item.content = done.content;
  else delete item.content;
  if (done.encrypted_content !== undefined) item.encrypted_content = done.encrypted_content;
  else delete item.encrypted_content;
}

function closePart(state: StreamState, c: Controller, open: OpenReasoning): void {
  const part = open.part;
  if (!part) return;
  open.part = null;
  const base = { item_id: open.item.id, output_index: open.index };
  if (part.kind === "summary") {
    const done = open.item.summary[part.index]!;
    emit(state, c, "response.reasoning_summary_text.done", { ...base, summary_index: part.index, text: done.text });
    emit(state, c, "response.reasoning_summary_part.done", { ...base, summary_index: part.index, part: snapshot(done) });
  } else {
    const done = open.item.content![part.index]!;
    emit(state, c, "response.reasoning_text.done", { ...base, content_index: part.index, text: done.text });
    emit(state, c, "response.content_part.done", { ...base, content_index: part.index, part: snapshot(done) });
  }
}

/** Closes the open reasoning item: its last part, then output_item.done with the finished item. */
export function closeReasoning(state: StreamState, c: Controller, open: OpenReasoning): void {
  closePart(state, c, open);
  finishReasoningItem(state, open.item);
  emit(state, c, "response.output_item.done", { output_index: open.index, item: snapshot(open.item) });
}

function openReasoning(state: StreamState, c: Controller, own: boolean, id: string | undefined): OpenReasoning {
  const item: ReasoningOutputItem = { type: "reasoning", id: (own ? id : undefined) ?? reasoningItemId(), summary: [] };
  const open: OpenReasoning = { kind: "reasoning", index: state.output.length, item, own, part: null };
  state.output.push(item);
  state.reasoning.set(item, { own, entries: [] });
  state.open = open;
  emit(state, c, "response.output_item.added", { output_index: open.index, item: snapshot(item) });
  return open;
}

/**
 * Streams one entry's text. A Responses item's summary entries are its summary parts and its text
 * entries its content parts; a carried run's text is one summary part, entries joined by a blank line
 * (as reasoningText joins them).
 */
function textDelta(state: StreamState, c: Controller, open: OpenReasoning, entry: number, text: string): void {
  const kind = open.own && state.details[entry]!.type === "reasoning.text" ? "content" : "summary";
  const base = { item_id: open.item.id, output_index: open.index };
  let delta = text;
  if (open.part && open.own && open.part.entry !== entry) closePart(state, c, open);
  if (!open.part) {
    const part = { type: kind === "summary" ? ("summary_text" as const) : ("reasoning_text" as const), text: "" };
    if (part.type === "summary_text") {
      open.part = { kind, index: open.item.summary.length, entry };
      open.item.summary.push({ type: "summary_text", text: "" });
      emit(state, c, "response.reasoning_summary_part.added", { ...base, summary_index: open.part.index, part });
    } else {
      const content = (open.item.content ??= []);
      open.part = { kind, index: content.length, entry };
      content.push({ type: "reasoning_text", text: "" });
      emit(state, c, "response.content_part.added", { ...base, content_index: open.part.index, part });
    }
  } else if (open.part.entry !== entry) {
    open.part.entry = entry;
    delta = `\n\n${text}`;
  }
  if (open.part.kind === "summary") {
    open.item.summary[open.part.index]!.text += delta;
    emit(state, c, "response.reasoning_summary_text.delta", { ...base, summary_index: open.part.index, delta });
  } else {
    open.item.content![open.part.index]!.text += delta;
    emit(state, c, "response.reasoning_text.delta", { ...base, content_index: open.part.index, delta });
  }
}

/**
 * One reasoning fragment. A new entry continues the open reasoning item when it belongs to it (same
 * Responses item, or the same carried run), else starts the next item after closing what is open. A
 * fragment for an entry whose item is already closed only updates the entry (the final response has it).
 */
export function reasoningFragment(state: StreamState, c: Controller, f: ReasoningFragment, closeOpen: () => void): void {
  const isNew = state.details[f.index] === undefined;
  mergeFragment(state.details, f);
  const entry = state.details[f.index]!;
  let open = state.open;
  const text = f.type === "reasoning.text" ? f.text : f.type === "reasoning.summary" ? f.summary : undefined;
  if (isNew && !text && (open?.kind === "message" || open?.kind === "call")) {
    // Opaque state arriving mid-answer would split the message it came with: its item comes last instead.
    state.late.push(f.index);
    return;
  }
  if (isNew) {
    const group = open?.kind === "reasoning" ? state.reasoning.get(open.item)! : undefined;
    const previous = group ? state.details[group.entries[group.entries.length - 1]!] : undefined;
    if (open?.kind !== "reasoning" || startsNewItem(previous, entry)) {
      closeOpen();
      open = openReasoning(state, c, entry.format === "openai-responses-v1", entry.id);
    }
    state.reasoning.get(open.item)!.entries.push(f.index);
  } else if (open?.kind !== "reasoning" || !state.reasoning.get(open.item)!.entries.includes(f.index)) return;
  if (text) textDelta(state, c, open, f.index, text);
}

/** The items of the entries that came late (see reasoningFragment), each added and done at once, after the answer's items. */
export function closeLate(state: StreamState, c: Controller): void {
  for (const group of groupReasoning(state.late.map((i) => ({ ...state.details[i]!, index: i })))) {
    const open = openReasoning(state, c, group.own, group.entries[0]!.id);
    state.reasoning.get(open.item)!.entries.push(...group.entries.map((d) => d.index!));
    state.open = null;
    closeReasoning(state, c, open);
  }
  state.late = [];
}
