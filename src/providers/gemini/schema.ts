// JSON Schema → the OpenAPI-3.0 subset Gemini accepts in `parameters` and `responseSchema`.
// Gemini rejects `$schema` and `additionalProperties`, has no `const`, spells nullable types as
// `nullable: true`, and refuses an OBJECT with empty `properties`.
import { isRecord } from "../content-parts";

const DROPPED_KEYS = new Set(["$schema", "additionalProperties", "strict", "$id"]);

export function toGeminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toGeminiSchema);
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYS.has(key)) continue;
    if (key === "const") out.enum = [value];
    else if (key === "type" && Array.isArray(value)) {
      const types = value.filter((t) => t !== "null");
      if (types.length < value.length) out.nullable = true;
      out.type = types.length === 1 ? types[0] : types;
    } else if (key === "properties" && isRecord(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toGeminiSchema(v)]));
    } else out[key] = toGeminiSchema(value);
  }
  return out;
}

/** A function's parameters, or undefined when it takes none (Gemini rejects empty OBJECT schemas). */
export function functionParameters(parameters: Record<string, unknown> | undefined): unknown {
  if (!parameters) return undefined;
  const properties = parameters.properties;
  if (parameters.type === "object" && (!isRecord(properties) || Object.keys(properties).length === 0)) return undefined;
  return toGeminiSchema(parameters);
}
