// Request validation done here rather than by Elysia, so that the status can be chosen per field (budgets
// answer 422 validation_error for a bad limit, scope or period; everything else 400 invalid_parameter)
// and `param` always names the field path (docs/contract.md "Upstreams, errors and timeouts"). Messages never echo the offending value: it
// may be a secret.
import { Type, type Static, type TLiteral, type TSchema, type TUnion } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ApiError, type ErrorCode } from "../http/errors";
import { schemaApiError, type SchemaFailure, type Wording } from "../http/schema-error";

/** A closed set of string values whose description lists them (it ends up in error messages and docs). */
export function oneOf<T extends string>(values: readonly T[], description = `one of ${values.join(", ")}`): TUnion<TLiteral<T>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );
}

function describe(e: SchemaFailure): string {
  if (e.message === "Expected required property") return "is required";
  if (e.message === "Unexpected property") return "is not a known field";
  const d = (e.schema as { description?: unknown } | undefined)?.description;
  return typeof d === "string" ? `expected ${d}` : e.message.replace(/^Expected/, "expected");
}

export interface ParseOptions {
  /** The error code for a failing field, by its param path (default invalid_parameter). */
  codeFor?: (param: string) => ErrorCode;
  /** Describes the whole value when it is not an object at all. */
  what?: string;
}

/** "Invalid 'limit': expected an integer from 1 to 100."; the value as a whole: "The query must be a JSON object." */
const wording =
  (what: string): Wording =>
  (param, f) =>
    param ? `Invalid '${param}': ${describe(f)}.` : `${what} must be a JSON object.`;

export function check<T extends TSchema>(schema: T, value: unknown, opts: ParseOptions = {}): Static<T> {
  const first = Value.Errors(schema, value).First();
  if (!first) return value as Static<T>;
  // The value as a whole is always invalid_parameter; a field's code may depend on the field.
  const code = (param: string): ErrorCode => (param ? (opts.codeFor?.(param) ?? "invalid_parameter") : "invalid_parameter");
  throw schemaApiError(first, wording(opts.what ?? "The request body"), code);
}

/** Query strings: numbers and booleans are converted first ("5" → 5, "true" → true), then checked. */
export function checkQuery<T extends TSchema>(schema: T, query: Record<string, string | undefined>): Static<T> {
  const present: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) if (v !== undefined) present[k] = v;
  const converted = Value.Convert(schema, present) as Record<string, unknown>;
  // TypeBox converts "1e20" or "5x" to an integer by its leading digits: only plain digits count as one.
  const props = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {};
  for (const [k, v] of Object.entries(query)) if (v !== undefined && props[k]?.type === "integer" && !/^-?\d+$/.test(v)) converted[k] = v;
  return check(schema, converted, { what: "The query" });
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
/** A list offset; the cap keeps it a safe integer every database accepts (offset=1e20 once answered 500). */
export const MAX_OFFSET = 1_000_000_000;
export const Offset = Type.Integer({ minimum: 0, maximum: MAX_OFFSET, description: `an integer from 0 to ${MAX_OFFSET}` });
export const DateParam = Type.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}(T[0-9:.]+(Z|[+-]\\d{2}:\\d{2}))?$",
  description: "a date (YYYY-MM-DD) or an ISO 8601 date-time",
});
export const DateTime = Type.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$",
  description: "an ISO 8601 date-time with a time zone",
});

const DAY_MS = 86_400_000;
const PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?/;

/**
 * Epoch ms of a date or date-time the patterns above admitted, or NaN unless every part is in range: a
 * bare Date.parse rolls "02-30" over to March and gives NaN for "T25:00", which was then stored.
 */
function strictMs(v: string): number {
  const p = PARTS.exec(v);
  if (!p) return NaN;
  const [y, mo, d, h = 0, mi = 0, sec = 0] = p.slice(1).map((x) => (x === undefined ? undefined : Number(x))) as number[];
  const daysIn = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > daysIn || h > 23 || mi > 59 || sec > 59) return NaN;
  return Date.parse(p[4] === undefined ? `${v}T00:00:00Z` : v);
}

/** A date-time field (already matched by DateTime) as epoch ms; an impossible one is a 400 naming it. */
export function dateTimeMs(v: string, param: string): number {
  const ms = strictMs(v);
  if (!Number.isFinite(ms)) throw new ApiError("invalid_parameter", `Invalid '${param}': not a valid date-time.`, { param });
  return ms;
}

/**
 * A date range as epoch ms [start, end): a plain date means the whole UTC day (so end_date includes its
 * day); a date-time is taken as given. Unparseable or reversed ranges are a 400 naming the field.
 */
export function dateRange(startParam: string | undefined, endParam: string | undefined): { start?: number; end?: number } {
  const parse = (v: string | undefined, name: string, isEnd: boolean) => {
    if (v === undefined) return undefined;
    const plain = /^\d{4}-\d{2}-\d{2}$/.test(v);
    const ms = strictMs(v);
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

export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
