// Fields whose meaning needs server-side state. `previous_response_id` is resolved before parsing when
// the gateway keeps responses (store/history.ts replaces it by the stored items); what still carries one
// here, like `conversation` and `prompt`, would answer a different question if ignored: refused.
import type { FieldError } from "./validation-error";

const STATEFUL_FIELDS = ["previous_response_id", "conversation", "prompt"] as const;

/** The first stateful field the body sets, as the documented 400; null when it sets none. */
export function statefulFieldError(record: Record<string, unknown>): FieldError | null {
  for (const field of STATEFUL_FIELDS) {
    if (record[field] !== undefined && record[field] !== null) {
      return {
        param: field,
        message: `'${field}' is not supported: this gateway keeps no response state; send the whole conversation in 'input'.`,
      };
    }
  }
  return null;
}
