// The shape of data/builtin-models.generated.json (written by scripts/catalog-update.ts) and its loader.
// The JSON is imported statically so that `bun build --compile` embeds it in the binary.
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { CAPABILITY_KEYS } from "./types";
import generated from "./data/builtin-models.generated.json";

const Price = Type.Number({ minimum: 0 });
const NullablePrice = Type.Union([Price, Type.Null()]);

export const BuiltinPriceVariant = Type.Object({
  name: Type.String({ minLength: 1 }),
  above_input_tokens: Type.Integer({ minimum: 0 }),
  input_price: Price,
  output_price: Price,
  cache_read_price: NullablePrice,
});

export const BuiltinRoute = Type.Object({
  provider: Type.String({ minLength: 1 }),
  provider_model_id: Type.String({ minLength: 1 }),
  input_price: Price,
  output_price: Price,
  cache_read_price: NullablePrice,
  cache_write_price: NullablePrice,
  context_window: Type.Integer({ minimum: 1 }),
  max_output_tokens: Type.Integer({ minimum: 1 }),
  endpoints: Type.Array(Type.Union([Type.Literal("chat_completions"), Type.Literal("responses")]), { minItems: 1 }),
  tools: Type.Array(Type.String()),
  latency_hint: Type.String(),
  ttft_hint_ms: Type.Number({ minimum: 0 }),
  tps_hint: Type.Number({ minimum: 0 }),
  price_variants: Type.Array(BuiltinPriceVariant),
});

export const BuiltinModel = Type.Object({
  id: Type.String({ pattern: "^[a-z0-9][a-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._:-]*$" }),
  display_name: Type.String({ minLength: 1 }),
  family: Type.String({ minLength: 1 }),
  author: Type.String({ minLength: 1 }),
  aliases: Type.Array(Type.String({ minLength: 1 })),
  /** YYYY-MM-DD, or null where no source states it. */
  release_date: Type.Union([Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" }), Type.Null()]),
  /** YYYY-MM-DD: the day the model entered the catalog's pick list, its `created` date when release_date is null. */
  added: Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" }),
  capabilities: Type.Object(Object.fromEntries(CAPABILITY_KEYS.map((k) => [k, Type.Boolean()]))),
  input_modalities: Type.Array(Type.String(), { minItems: 1 }),
  output_modalities: Type.Array(Type.String(), { minItems: 1 }),
  routes: Type.Array(BuiltinRoute, { minItems: 1 }),
});

export const BuiltinData = Type.Object({
  generated_at: Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T" }),
  /** Package name → version of each dataset the file was generated from. */
  sources: Type.Record(Type.String(), Type.String()),
  models: Type.Array(BuiltinModel),
});

export type BuiltinDataT = Static<typeof BuiltinData>;
export type BuiltinModelT = Static<typeof BuiltinModel>;
export type BuiltinRouteT = Static<typeof BuiltinRoute>;

/** Checks a data file against the schema; throws naming the first bad field path. */
export function parseBuiltinData(data: unknown): BuiltinDataT {
  if (Value.Check(BuiltinData, data)) return data;
  const first = Value.Errors(BuiltinData, data).First();
  throw new Error(`built-in catalog data is malformed at ${first?.path ?? "/"}: ${first?.message ?? "invalid"}`);
}

/** The data embedded in this build. Validated by build.ts on first use, not at import. */
export const BUILTIN_DATA: unknown = generated;
