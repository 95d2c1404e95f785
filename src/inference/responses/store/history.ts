// previous_response_id, resolved by the gateway: the kept response's input (already resolved, so one
// lookup covers every earlier turn) and its output items go in front of this call's input, and the field
// is dropped, so the call means the same on every route, native Responses routes included (the gateway's
// copy replaces the upstream's). A response the gateway does not have is left to the route memory
// (follow-up.ts): a native route that stored it may still serve the call; elsewhere it is OpenAI's 400.
import { ApiError } from "../../../http/errors";
import type { ResponseStore } from "./store";

export interface Resolved {
  /** The body to send: previous_response_id replaced by the items it names, when the store has them. */
  body: unknown;
  /** The full input the model sees (what is kept with the response); null when the call is not kept. */
  input: unknown[] | null;
  /** A previous_response_id the store does not have: only the route that stored it may serve the call. */
  missing?: ApiError;
  /** Bytes of the kept earlier turns (a lower bound of this call's kept size). */
  priorBytes: number;
  /** The kept response this call continues. */
  previousResponseId?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `input` as items: a string is one user message (as OpenAI lists it among the input items). */
export function inputItems(input: unknown): unknown[] {
  if (typeof input === "string") return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  return Array.isArray(input) ? input : [];
}

/** OpenAI's answer for a previous_response_id it does not hold (unknown, expired, deleted, another project's). */
export function previousNotFound(id: string): ApiError {
  return new ApiError("invalid_parameter", `Previous response with id '${id}' not found.`, { param: "previous_response_id" });
}

export async function resolveHistory(store: ResponseStore, workspaceId: string, body: unknown, now: number): Promise<Resolved> {
  if (!isRecord(body)) return { body, input: null, priorBytes: 0 };
  const keep = body.store !== false;
  const id = body.previous_response_id;
  if (typeof id !== "string" || id === "") return { body, input: keep ? inputItems(body.input) : null, priorBytes: 0 };
  const stored = await store.find(workspaceId, id, now);
  // Not kept here: the upstream's copy (route memory) is the only one, so this call is not kept either
  // (the gateway's copy would lack the earlier turns).
  if (!stored) return { body, input: null, missing: previousNotFound(id), priorBytes: 0 };
  const output = Array.isArray(stored.response.output) ? (stored.response.output as unknown[]) : [];
  const input = [...stored.input, ...output, ...inputItems(body.input)];
  const { previous_response_id: _, ...rest } = body;
  return { body: { ...rest, input }, input: keep ? input : null, priorBytes: stored.bytes, previousResponseId: id };
}
