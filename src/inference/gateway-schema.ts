// The gateway's own request extensions (API document §1, §2.5, §8), shared by all three interfaces.
import { Type, type Static } from "@sinclair/typebox";

export const OPTIMIZE = ["cost", "cost-focus", "ttft", "ttft-focus", "tps", "tps-focus", "balanced"] as const;

export const GatewayMetadata = Type.Object(
  {
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 100 })),
    user_id: Type.Optional(Type.String({ maxLength: 255 })),
    trace_id: Type.Optional(Type.String({ maxLength: 255 })),
    custom_fields: Type.Optional(
      // A RegExp key (with additionalProperties false) is what TypeBox checks: a Type.String key's pattern is ignored.
      Type.Record(Type.RegExp(/^[\s\S]{1,50}$/u), Type.String({ maxLength: 200 }), { maxProperties: 10, additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

export const GatewayRouting = Type.Object(
  {
    mode: Type.Optional(Type.Union([Type.Literal("pool"), Type.Literal("fallback")])),
    optimize: Type.Optional(Type.Union(OPTIMIZE.map((o) => Type.Literal(o)))),
    max_cost_per_1m: Type.Optional(Type.Number({ minimum: 0 })),
    max_ttft_ms: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const GatewayField = Type.Object(
  {
    models: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 10 })),
    routing: Type.Optional(GatewayRouting),
    metadata: Type.Optional(GatewayMetadata),
  },
  { additionalProperties: false },
);
export type Gateway = Static<typeof GatewayField>;

export const ExtensionsField = Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()));
