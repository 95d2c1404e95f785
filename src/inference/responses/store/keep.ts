// One Responses call's part in the store, decided before the call: its body with previous_response_id
// resolved (history.ts), the input to keep with the answer, and `kept`, which queues the answer's text
// once it is written (a JSON answer) or streamed (capture.ts). Keeping never runs on the answer's path.
import { authenticate, authOf } from "../../../http/auth";
import type { ApiError } from "../../../http/errors";
import type { Warning } from "../../../providers/types";
import type { InferenceRouteDeps } from "../../interface-call";
import { resolveHistory } from "./history";
import type { ResponseStore } from "./store";

export interface Keeping {
  /** The body to send, when the store changed it. */
  body?: unknown;
  missing?: ApiError;
  /** The kept response this call continues (echoed as previous_response_id by translated answers). */
  previousResponseId?: string;
  /** Said in routing_metadata.warnings when the call is known to be too large to keep before it runs. */
  warning?: Warning;
  /** The input kept with the answer; null: the answer is not kept. */
  input: unknown[] | null;
  /** Queues the answer's text (and that text parsed, when known) to be kept after the current tick; returns the text. */
  kept: (responseText: string, response?: unknown) => string;
}

export const NOT_KEPT: Keeping = { input: null, kept: (text) => text };

export async function prepareKeeping(d: InferenceRouteDeps, store: ResponseStore, request: Request, body: unknown): Promise<Keeping> {
  const authed = authOf(request) ?? authenticate(d.keys, request.headers);
  const { workspaceId } = authed instanceof Promise ? await authed : authed;
  const now = Date.now();
  const resolved = await resolveHistory(store, workspaceId, body, now);
  const base: Keeping = {
    ...(resolved.body !== body ? { body: resolved.body } : {}),
    ...(resolved.missing ? { missing: resolved.missing } : {}),
    ...(resolved.previousResponseId ? { previousResponseId: resolved.previousResponseId } : {}),
    input: null,
    kept: NOT_KEPT.kept,
  };
  const input = resolved.input;
  if (input === null) return base;
  // Cheap and certain: the earlier turns and this body already pass the bound; the exact size is known afterwards.
  const length = Number(request.headers.get("content-length") ?? 0);
  if (resolved.priorBytes + (Number.isFinite(length) ? length : 0) > store.maxBytes) return { ...base, warning: tooLarge(store.maxBytes) };
  const kept = (text: string, response?: unknown): string => {
    setImmediate(() => {
      const r = store.keep(workspaceId, input, text, Date.now(), response);
      if (!r.kept && r.reason !== "not_a_response")
        d.inference.logger.warn("response not kept", { workspace_id: workspaceId, reason: r.reason, max_bytes: store.maxBytes });
    });
    return text;
  };
  return { ...base, input, kept };
}

function tooLarge(maxBytes: number): Warning {
  return {
    type: "unsupported_parameter",
    code: "store",
    message: `This response is not stored: its conversation is over the gateway's limit (responses.store_max_bytes, ${maxBytes} bytes), so previous_response_id and GET /v1/responses/{id} cannot name it.`,
  };
}
