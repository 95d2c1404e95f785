// A Responses stream's reasoning items → reasoning fragments in `delta.extra` (providers/reasoning.ts):
//   response.reasoning_summary_text.delta → a reasoning.summary fragment (+ reasoning_content)
//   response.reasoning_text.delta         → a reasoning.text fragment (+ reasoning_content)
//   response.output_item.done (reasoning) → the parts no delta carried, then the encrypted_content
// Each summary part, content part and the encrypted state of an item is one entry, numbered in the
// order they appear across the message; every fragment carries its item's id.
import type { ChunkDelta } from "../types";
import { RESPONSES_FORMAT, type ReasoningFragment } from "../reasoning";
import { isRecord } from "../content-parts";
import type { ResponsesOutputItemWire } from "./wire";

interface ItemState {
  id: string | undefined;
  /** summary_index → entry index. */
  summary: Map<number, number>;
  /** content_index → entry index. */
  content: Map<number, number>;
  /** Whether any fragment was emitted for the item. */
  emitted: boolean;
}

export class ReasoningStream {
  private nextIndex = 0;
  /** Items by output_index (or item id for servers that omit it). */
  private readonly items = new Map<string, ItemState>();

  /** A summary or reasoning text delta event's fragment. */
  delta(kind: "summary" | "content", data: Record<string, unknown>): ChunkDelta[] {
    if (typeof data.delta !== "string" || data.delta === "") return [];
    const item = this.item(data, undefined);
    const part = kind === "summary" ? data.summary_index : data.content_index;
    return [this.textFragment(item, kind, typeof part === "number" ? part : 0, data.delta)];
  }

  /** A finished reasoning item: what no delta carried (servers that send items whole), then its encrypted state. */
  done(data: Record<string, unknown>): ChunkDelta[] {
    const wire = data.item as ResponsesOutputItemWire;
    const item = this.item(data, wire.id);
    const out: ChunkDelta[] = [];
    (wire.summary ?? []).forEach((part, i) => {
      if (!item.summary.has(i) && typeof part?.text === "string" && part.text !== "")
        out.push(this.textFragment(item, "summary", i, part.text));
    });
    (wire.content ?? []).forEach((part, i) => {
      if (!item.content.has(i) && part?.type === "reasoning_text" && typeof part.text === "string" && part.text !== "")
        out.push(this.textFragment(item, "content", i, part.text));
    });
    if (typeof wire.encrypted_content === "string" && wire.encrypted_content !== "") {
      out.push({ extra: { reasoning_details: [this.fragment(item, { type: "reasoning.encrypted", data: wire.encrypted_content })] } });
    } else if (!item.emitted) {
      // An item with nothing in it still gives its entry, so that its id survives.
      out.push({ extra: { reasoning_details: [this.fragment(item, { type: "reasoning.summary", summary: "" })] } });
    }
    return out;
  }

  private item(data: Record<string, unknown>, itemId: string | undefined): ItemState {
    const id = itemId ?? (typeof data.item_id === "string" ? data.item_id : undefined);
    const key = typeof data.output_index === "number" ? `#${data.output_index}` : (id ?? "");
    let item = this.items.get(key);
    if (!item) {
      item = { id, summary: new Map(), content: new Map(), emitted: false };
      this.items.set(key, item);
    }
    item.id ??= id;
    return item;
  }

  private textFragment(item: ItemState, kind: "summary" | "content", part: number, text: string): ChunkDelta {
    const parts = kind === "summary" ? item.summary : item.content;
    let index = parts.get(part);
    if (index === undefined) parts.set(part, (index = this.nextIndex++));
    const body = kind === "summary" ? { type: "reasoning.summary" as const, summary: text } : { type: "reasoning.text" as const, text };
    return { extra: { reasoning_details: [this.fragment(item, body, index)], reasoning_content: text } };
  }

  private fragment(
    item: ItemState,
    body: Pick<ReasoningFragment, "type" | "text" | "summary" | "data">,
    index = this.nextIndex++,
  ): ReasoningFragment {
    item.emitted = true;
    return { ...body, format: RESPONSES_FORMAT, index, ...(item.id !== undefined ? { id: item.id } : {}) };
  }
}

export function isReasoningItem(data: Record<string, unknown>): boolean {
  return isRecord(data.item) && data.item.type === "reasoning";
}
