// Request validation done here rather than by Elysia, so that the status can be chosen per field (budgets
// answer 422 validation_error for a bad limit, scope or period; everything else 400 invalid_parameter)
// and `param` always names the field path (CONTRACT §4). Messages never echo the offending value: it
// may be a secret.
import { Type, type Static, type TLiteral, type TSchema, type TUnion } from "@sinclair/typebox";
import { Value, type ValueError } from "@sinclair/typebox/value";
import { ApiError, type ErrorCode } from "../http/errors";
import { pointerToParam } from "../http/param-path";

/** A closed set of string values whose description lists them (it ends up in error messages and docs). */
export function oneOf<T extends string>(values: readonly T[], description = `one of ${values.join(", ")}`): TUnion<TLiteral<T>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );
}

function describe(e: ValueError): string {
  if (e.message === "Expected required property") return "is required";
  if (e.message === "Unexpected property") return "is not a known field";
  const d = (e.schema as { description?: unknown }).description;
  return typeof d === "string" ? `expected ${d}` : e.message.replace(/^Expected/, "expected");
}

export interface ParseOptions {
  /** The error code for a failing field, by its param path (default invalid_parameter). */
  codeFor?: (param: string) => ErrorCode;
  /** Describes the whole value when it is not an object at all. */
  what?: string;
}

export function check<T extends TSchema>(schema: T, value: unknown, opts: ParseOptions = {}): Static<T> {
  const first = Value.Errors(schema, value).First();
  if (!first) return value as Static<T>;
  const param = pointerToParam(first.path);
  if (!param) throw new ApiError("invalid_parameter", `${opts.what ?? "The request body"} must be a JSON object.`);
  const code = opts.codeFor?.(param) ?? "invalid_parameter";
  throw new ApiError(code, `Invalid '${param}': ${describe(first)}.`, { param });
}

/** Query strings: numbers and booleans are converted first ("5" → 5, "true" → true), then checked. */
export function checkQuery<T extends TSchema>(schema: T, query: Record<string, string | undefined>): Static<T> {
  const present: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) if (v !== undefined) present[k] = v;
  return check(schema, Value.Convert(schema, present), { what: "The query" });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path IDs are UUIDs (API document §4); a malformed one is the caller's mistake. */
export function uuidParam(value: string | undefined, name: string): string {
  if (!value || !UUID.test(value)) throw new ApiError("invalid_parameter", `Invalid '${name}': expected a UUID.`, { param: name });
  return value.toLowerCase();
}

export const isUuid = (s: string): boolean => UUID.test(s);

export const Limit = (max: number, dflt: number) =>
  Type.Integer({ minimum: 1, maximum: max, default: dflt, description: `an integer from 1 to ${max}` });
export const Offset = Type.Integer({ minimum: 0, description: "an integer ≥ 0" });
export const DateParam = Type.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}(T[0-9:.]+(Z|[+-]\\d{2}:\\d{2}))?$",
  description: "a date (YYYY-MM-DD) or an ISO 8601 date-time",
});
export const DateTime = Type.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$",
  description: "an ISO 8601 date-time with a time zone",
});

const DAY_MS = 86_400_000;

/**
 * A date range as epoch ms [start, end): a plain date means the whole UTC day (so end_date includes its
 * day); a date-time is taken as given. Unparseable or reversed ranges are a 400 naming the field.
 */
export function dateRange(startParam: string | undefined, endParam: string | undefined): { start?: number; end?: number } {
  const parse = (v: string | undefined, name: string, isEnd: boolean) => {
    if (v === undefined) return undefined;
    const plain = /^\d{4}-\d{2}-\d{2}$/.test(v);
    const ms = Date.parse(plain ? `${v}T00:00:00Z` : v);
    if (!Number.isFinite(ms)) throw new ApiError("invalid_parameter", `Invalid '${name}': not a valid date.`, { param: name });
    return plain && isEnd ? ms + DAY_MS : ms;
  };
  const start = parse(startParam, "start_date", false);
  const end = parse(endParam, "end_date", true);
  if (start !== undefined && end !== undefined && start >= end) {
    throw new ApiError("invalid_parameter", "Invalid 'end_date': must not be before start_date.", { param: "end_date" });
  }
  return { start, end };
}

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
