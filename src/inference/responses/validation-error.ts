// Turns TypeBox validation errors into one clear message that names the field, for both the
// Responses (our envelope, `param`) and Messages (Anthropic's body) interfaces. TypeBox reports a
// failed union as "Expected union value" at the union's path; we look into the variant the value
// meant (by its `type`) or that got furthest, so the message names the real culprit (e.g.
// `tools[0].name`), not just `tools[0]`.
import type { TSchema } from "@sinclair/typebox";
import { Value, ValueErrorType, type ValueError } from "@sinclair/typebox/value";
import type { ApiError } from "../../http/errors";
import { pointerToParam } from "../../http/param-path";
import { fieldApiError } from "../../http/schema-error";

export interface FieldError {
  /** Dotted path with indexes, e.g. `input[2].content`; "" for the body itself. */
  param: string;
  message: string;
}

const depth = (path: string): number => (path === "" ? 0 : path.split("/").length - 1);

/** The literal values a variant's `type` property allows (our unions discriminate on it). */
function variantTags(variant: TSchema): string[] {
  const type = variant.properties?.type as TSchema | undefined;
  if (!type) return [];
  if (typeof type.const === "string") return [type.const];
  return Array.isArray(type.anyOf) ? type.anyOf.map((t: TSchema) => t.const).filter((c: unknown) => typeof c === "string") : [];
}

type Resolved = { error: ValueError } | { field: FieldError };

/**
 * For a union error: the error of the variant the value meant (by its `type`); a message listing
 * the allowed types when its `type` names none; the error of the variant of the value's own JSON
 * type; else the error of the variant that matched deepest (ties: the first variant).
 */
function resolve(error: ValueError): Resolved {
  if (error.type !== ValueErrorType.Union) return { error };
  const variants = (error.schema.anyOf ?? []) as TSchema[];
  const tag = (error.value as { type?: unknown } | null)?.type;
  const tags = variants.map(variantTags);
  if (typeof tag === "string" && tags.some((t) => t.length > 0)) {
    const index = tags.findIndex((t) => t.includes(tag));
    const meant = index >= 0 ? error.errors[index]?.First() : undefined;
    if (meant) return resolve(meant);
    if (index < 0) {
      const param = pointerToParam(`${error.path}/type`);
      const allowed = tags
        .flat()
        .map((t) => JSON.stringify(t))
        .join(", ");
      return { field: { param, message: `'${param}' must be one of ${allowed}; got ${JSON.stringify(tag)}.` } };
    }
  }
  // A number out of range in `number | null` should say so, not "must be a number or a null".
  const kind = error.value === null ? "null" : Array.isArray(error.value) ? "array" : typeof error.value;
  // A closed set of literals ("p50" | "p95") is described whole, not by its first member.
  if (variants.every((v) => v.const !== undefined)) return { error };
  const sameKind = variants.findIndex((v) => v.type === kind || (v.type === "integer" && kind === "number"));
  const sameKindError = kind !== "object" && sameKind >= 0 ? error.errors[sameKind]?.First() : undefined;
  if (sameKindError) return resolve(sameKindError);
  let best: ValueError | undefined;
  for (const variant of error.errors) {
    const first = variant.First();
    if (first && depth(first.path) > depth(best?.path ?? error.path)) best = first;
  }
  return best ? resolve(best) : { error };
}

function describeSchema(schema: TSchema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (typeof schema.type === "string")
    return schema.type === "object" ? "an object" : schema.type === "array" ? "an array" : `a ${schema.type}`;
  if (Array.isArray(schema.anyOf)) return [...new Set(schema.anyOf.map(describeSchema))].join(" or ");
  return "a valid value";
}

function messageFor(error: ValueError, param: string): string {
  const name = param === "" ? "The request body" : `'${param}'`;
  if (error.type === ValueErrorType.ObjectRequiredProperty) return `${name} is required.`;
  if (error.type === ValueErrorType.Union) return `${name} must be ${describeSchema(error.schema)}.`;
  if (error.type === ValueErrorType.Literal) return `${name} must be ${JSON.stringify(error.schema.const)}.`;
  return `${name} is invalid: ${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}.`;
}

/** The first validation failure of `value` against `schema`, or null when it is valid. */
export function firstFieldError(schema: TSchema, value: unknown): FieldError | null {
  const first = Value.Errors(schema, value).First();
  if (!first) return null;
  const resolved = resolve(first);
  if ("field" in resolved) return resolved.field;
  const param = pointerToParam(resolved.error.path);
  return { param, message: messageFor(resolved.error, param) };
}

/** A request validation failure as our error, rendered by either interface's edge. */
export function validationApiError(error: FieldError): ApiError {
  return fieldApiError(error.param, error.message);
}
