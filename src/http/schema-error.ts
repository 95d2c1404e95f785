// The one converter from a schema failure (TypeBox's ValueError: a JSON pointer, the failing schema and
// its message) to our error: `param` is the field's path in docs/contract.md's form, none for the value
// as a whole. Each caller brings its wording, so every message stays the one its interface documents.
import { ApiError, type ErrorCode } from "./errors";
import { pointerToParam } from "./param-path";

/** What every validator reports of a failing value (TypeBox's ValueError has all of it). */
export interface SchemaFailure {
  path: string;
  message: string;
  schema?: unknown;
}

/** The message for a failure at `param` ("" for the value as a whole). */
export type Wording = (param: string, failure: SchemaFailure) => string;

/** Elysia's own wording, used for the schemas it checks: "Invalid 'model': Expected string." */
export const plainWording: Wording = (param, f) => (param ? `Invalid '${param}': ${f.message}.` : `${f.message}.`);

/** A failing field as our error (no `param` for the value as a whole: the envelope says null). */
export function fieldApiError(param: string, message: string, code: ErrorCode = "invalid_parameter"): ApiError {
  return new ApiError(code, message, param ? { param } : {});
}

export function schemaApiError(
  failure: SchemaFailure,
  wording: Wording,
  code: ErrorCode | ((param: string) => ErrorCode) = "invalid_parameter",
): ApiError {
  const param = pointerToParam(failure.path);
  return fieldApiError(param, wording(param, failure), typeof code === "function" ? code(param) : code);
}
