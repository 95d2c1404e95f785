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

const Percentile = (of: string) =>
  Type.Union([Type.Literal("p50"), Type.Literal("p95")], {
    description: `Which estimate ${of} is compared against: "p50" (the median, default) or "p95" (the pessimistic end).`,
  });
const ProviderIds = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
    maxItems: 100,
    description: `${description} Provider IDs from /v1/registry/providers.`,
  });

export const GatewayRouting = Type.Object(
  {
    mode: Type.Optional(
      Type.Union([Type.Literal("pool"), Type.Literal("fallback")], {
        description: '"pool" (default): every route of every model ranked together; "fallback": gateway.models in order.',
      }),
    ),
    optimize: Type.Optional(
      Type.Union(
        OPTIMIZE.map((o) => Type.Literal(o)),
        { description: "The ranking strategy (default: the model ID's suffix, else the workspace's, else cost-focus)." },
      ),
    ),
    max_cost_per_1m: Type.Optional(
      Type.Number({ minimum: 0, description: "Ceiling on a route's blended price (input+output)/2, USD per 1M tokens." }),
    ),
    max_ttft_ms: Type.Optional(
      Type.Number({ minimum: 0, description: "Ceiling on a route's expected time to first token (at ttft_percentile), ms." }),
    ),
    min_throughput_tps: Type.Optional(
      Type.Number({ minimum: 0, description: "Floor on a route's expected output tokens per second (at throughput_percentile)." }),
    ),
    ttft_percentile: Type.Optional(Percentile("max_ttft_ms")),
    throughput_percentile: Type.Optional(Percentile("min_throughput_tps")),
    min_success_rate: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: "Floor on a route's recent success rate, 0..1 (routes not yet measured pass).",
      }),
    ),
    prefer: Type.Optional(ProviderIds("Providers to favour when routes are otherwise close: a soft preference, never a filter.")),
    providers: Type.Optional(
      ProviderIds("Only these providers (narrows the workspace's allow-list, never widens it; empty: no restriction)."),
    ),
    exclude_providers: Type.Optional(ProviderIds("Never these providers (added to the workspace's exclusions).")),
    only_byok: Type.Optional(Type.Boolean({ description: "Only routes paid with the workspace's own BYOK keys (default false)." })),
    only_platform: Type.Optional(Type.Boolean({ description: "Only routes paid with the platform's keys (default false)." })),
    require_parameters: Type.Optional(
      Type.Boolean({
        description: "Only routes whose adapter carries every parameter the request uses, nothing dropped or clamped (default false).",
      }),
    ),
  },
  { additionalProperties: false, description: "Routing options for this request; absent fields take the workspace's defaults." },
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
