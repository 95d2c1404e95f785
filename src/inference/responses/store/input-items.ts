// GET /v1/responses/{id}/input_items: the kept input, OpenAI's list shape and paging (limit, order, after).
import type { StoredResponse } from "./store";

export interface ItemList {
  object: "list";
  data: Record<string, unknown>[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

type Page = { ok: true; list: ItemList } | { ok: false; param: string; message: string };

/** An item as OpenAI lists it: typed, with an ID, a string content as one text part. */
function listed(item: unknown, index: number, responseId: string): Record<string, unknown> {
  const r = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {
    ...r,
    id: typeof r.id === "string" ? r.id : `${responseId}_in_${index}`,
    type: r.type ?? "message",
  };
  if (typeof r.content === "string") out.content = [{ type: r.role === "assistant" ? "output_text" : "input_text", text: r.content }];
  return out;
}

export function inputItemsPage(stored: StoredResponse, query: { limit?: string; order?: string; after?: string }): Page {
  const limit = query.limit === undefined ? 20 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return { ok: false, param: "limit", message: "'limit' must be an integer from 1 to 100." };
  const order = query.order ?? "desc";
  if (order !== "asc" && order !== "desc") return { ok: false, param: "order", message: "'order' must be 'asc' or 'desc'." };
  const items = stored.input.map((item, i) => listed(item, i, stored.id));
  if (order === "desc") items.reverse();
  let start = 0;
  if (query.after !== undefined) {
    const at = items.findIndex((item) => item.id === query.after);
    if (at < 0) return { ok: false, param: "after", message: `No input item with id '${query.after}' in this response.` };
    start = at + 1;
  }
  const data = items.slice(start, start + limit);
  return {
    ok: true,
    list: {
      object: "list",
      data,
      first_id: (data[0]?.id as string | undefined) ?? null,
      last_id: (data[data.length - 1]?.id as string | undefined) ?? null,
      has_more: start + limit < items.length,
    },
  };
}
