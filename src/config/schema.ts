// The operator's configuration, defined once as TypeBox schemas: env vars / flags and the JSON config file.
import { Type, type Static } from "@sinclair/typebox";

export const LogLevel = Type.Union([Type.Literal("debug"), Type.Literal("info"), Type.Literal("warn"), Type.Literal("error")]);

/** Environment variables (each also a --flag). Strings as they come from the environment. */
export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, description: "an integer port 0-65535" }),
  HOST: Type.String({ minLength: 1, description: "a host name or address" }),
  DATABASE_URL: Type.String({
    pattern: "^(sqlite:.+|postgres(ql)?://.+)$",
    description: "sqlite:PATH, sqlite::memory: or postgres://…",
  }),
  REDIS_URL: Type.Optional(Type.String({ pattern: "^rediss?://.+", description: "a redis:// or rediss:// URL" })),
  REDIS_PREFIX: Type.String({ minLength: 1, description: "a non-empty key prefix" }),
  SWITCHYARD_CONFIG: Type.Optional(Type.String({ minLength: 1, description: "a path to a JSON config file" })),
  SWITCHYARD_ADMIN_KEY: Type.Optional(
    Type.String({ pattern: "^ak_[A-Za-z0-9]{32,}$", description: "an ak_ key with at least 32 base62 characters after ak_" }),
  ),
  SWITCHYARD_MASTER_KEY: Type.Optional(Type.String({ minLength: 1, description: "32 bytes, base64 or hex" })),
  SWITCHYARD_LOG_LEVEL: LogLevel,
  SWITCHYARD_TRUSTED_PROXIES: Type.Optional(Type.String({ description: "comma-separated proxy addresses" })),
  SWITCHYARD_UPSTREAM_CLIENT: Type.Union([Type.Literal("sockets"), Type.Literal("fetch")], {
    description: "'sockets' (the gateway's own HTTP/1.1 client) or 'fetch' (Bun's fetch)",
  }),
  HTTPS_PROXY: Type.Optional(Type.String({ pattern: "^https?://[^/?#]+/?$", description: "an http:// or https:// proxy URL" })),
  HTTP_PROXY: Type.Optional(Type.String({ pattern: "^https?://[^/?#]+/?$", description: "an http:// or https:// proxy URL" })),
  NO_PROXY: Type.Optional(Type.String({ description: "a comma-separated list of hosts, .domains, host:port, IPs or *" })),
  SWITCHYARD_METRICS_PUBLIC: Type.Optional(
    Type.Union([Type.Literal("0"), Type.Literal("1")], { description: "1 (GET /metrics needs no key) or 0" }),
  ),
  SWITCHYARD_TUNING: Type.Union([Type.Literal("on"), Type.Literal("off")], {
    description: "'on' (the speed and memory tuning, docs/tuning.md) or 'off' (plain Bun)",
  }),
  SWITCHYARD_HEAP_LIMIT_MB: Type.Integer({
    minimum: 0,
    description: "an integer number of MB of garbage allowed above the live heap (0 turns the memory governor off)",
  }),
});
export type Env = Static<typeof EnvSchema>;

const Tier = Type.Object({
  name: Type.String({ minLength: 1 }),
  rpm: Type.Optional(Type.Integer({ minimum: 0 })),
  tpm: Type.Optional(Type.Integer({ minimum: 0 })),
  data_policy: Type.Optional(Type.Union([Type.Literal("none"), Type.Literal("no_training"), Type.Literal("zdr")])),
  is_default: Type.Optional(Type.Boolean()),
});

export const DataPolicy = Type.Union([Type.Literal("none"), Type.Literal("no_training"), Type.Literal("zdr")]);

export const ProviderConfig = Type.Object(
  {
    adapter: Type.Union([Type.Literal("openai"), Type.Literal("anthropic"), Type.Literal("gemini")]),
    base_url: Type.Optional(Type.String({ pattern: "^https?://" })),
    api_key: Type.Optional(Type.String({ minLength: 1 })),
    api_key_env: Type.Optional(Type.String({ pattern: "^[A-Z_][A-Z0-9_]*$" })),
    display_name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    data_policy: Type.Optional(DataPolicy),
    byok: Type.Optional(Type.Boolean()),
    tiers: Type.Optional(Type.Array(Tier)),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    first_byte_timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    connect_timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    stream_timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    idle_timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    docs_url: Type.Optional(Type.String()),
    supports_responses: Type.Optional(Type.Boolean()),
    // What a chat-completions vendor takes back of a translated turn's reasoning, and whether it takes cache markers.
    chat_reasoning: Type.Optional(Type.Union([Type.Literal("reasoning_details"), Type.Literal("reasoning_content"), Type.Literal("none")])),
    cache_control: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const Capabilities = Type.Record(Type.String(), Type.Boolean());

export const RouteConfig = Type.Object(
  {
    provider: Type.String({ minLength: 1 }),
    provider_model_id: Type.String({ minLength: 1 }),
    input_price: Type.Number({ minimum: 0 }),
    output_price: Type.Number({ minimum: 0 }),
    cache_read_price: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
    cache_write_price: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
    context_window: Type.Optional(Type.Integer({ minimum: 1 })),
    max_output_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    latency_hint: Type.Optional(Type.Union([Type.Literal("fast"), Type.Literal("normal"), Type.Literal("slow")])),
    ttft_hint_ms: Type.Optional(Type.Number({ minimum: 0 })),
    tps_hint: Type.Optional(Type.Number({ minimum: 0 })),
    data_policy: Type.Optional(DataPolicy),
    endpoints: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);

export const ModelConfig = Type.Object(
  {
    display_name: Type.Optional(Type.String()),
    family: Type.Optional(Type.String()),
    author: Type.Optional(Type.String()),
    aliases: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    capabilities: Type.Optional(Capabilities),
    input_modalities: Type.Optional(Type.Array(Type.String())),
    output_modalities: Type.Optional(Type.Array(Type.String())),
    routes: Type.Array(RouteConfig, { minItems: 1 }),
  },
  { additionalProperties: false },
);

const Bucket = Type.Object(
  { per_minute: Type.Integer({ minimum: 1 }), burst: Type.Optional(Type.Integer({ minimum: 1 })) },
  { additionalProperties: false },
);

export const FileConfigSchema = Type.Object(
  {
    catalog: Type.Optional(Type.Union([Type.Literal("merge"), Type.Literal("replace")])),
    providers: Type.Optional(Type.Record(Type.String({ pattern: "^[a-z0-9][a-z0-9_.-]*$" }), ProviderConfig)),
    models: Type.Optional(Type.Record(Type.String({ minLength: 1 }), ModelConfig)),
    limits: Type.Optional(
      Type.Object(
        {
          inference: Type.Optional(Bucket),
          discovery: Type.Optional(Bucket),
          management_reads: Type.Optional(Bucket),
          management_writes: Type.Optional(Bucket),
          key_creation: Type.Optional(Bucket),
        },
        { additionalProperties: false },
      ),
    ),
    credits: Type.Optional(Type.Object({ enforce: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
    /** Circuit breaker: consecutive failures that open a route's circuit, and the cool-down before a probe. */
    circuit: Type.Optional(
      Type.Object(
        { failure_threshold: Type.Optional(Type.Integer({ minimum: 1 })), cooldown_ms: Type.Optional(Type.Integer({ minimum: 1 })) },
        { additionalProperties: false },
      ),
    ),
    /** The adaptive router's tuning (docs/routing.md): exploration share, how fast old samples fade, cache stickiness. */
    routing: Type.Optional(
      Type.Object(
        {
          explore_share: Type.Optional(Type.Number({ minimum: 0, maximum: 0.5 })),
          sample_half_life_s: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 86_400 })),
          sticky_ttl_s: Type.Optional(Type.Number({ minimum: 0, maximum: 86_400 })),
        },
        { additionalProperties: false },
      ),
    ),
    trusted_proxies: Type.Optional(Type.Array(Type.String())),
    /** How long a playground key lives when its create body names no expiry, in hours (default 24). */
    playground_key_ttl_hours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 8760 })),
    /** How long adding a BYOK key waits for the provider to answer its validation call, in ms (default 10,000). */
    byok_validation_timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 })),
    /** How long the route that served a Responses ID is remembered for `previous_response_id` follow-ups, in hours (default 720: 30 days). */
    response_route_ttl_hours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 8760 })),
    /** Responses the gateway keeps for previous_response_id, GET and DELETE /v1/responses/{id} (docs/configuration.md). */
    responses: Type.Optional(
      Type.Object(
        {
          store: Type.Optional(Type.Boolean()),
          store_ttl_hours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 8760 })),
          store_max_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** OpenTelemetry traces (on when OTEL_EXPORTER_OTLP_ENDPOINT is set): `record_content` adds prompts and completions to the spans. */
    tracing: Type.Optional(Type.Object({ record_content: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
    /** GET /metrics: `public` serves it without a key (a private network); `workspace_label` adds a workspace label. */
    metrics: Type.Optional(
      Type.Object(
        { public: Type.Optional(Type.Boolean()), workspace_label: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    ),
    /** The largest request body accepted, in MB (1 MB = 1,048,576 bytes): inference routes, management routes. */
    max_request_body_mb: Type.Optional(
      Type.Object(
        { inference: Type.Optional(Type.Number({ exclusiveMinimum: 0 })), management: Type.Optional(Type.Number({ exclusiveMinimum: 0 })) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type FileConfig = Static<typeof FileConfigSchema>;
export type ProviderConfigT = Static<typeof ProviderConfig>;
export type ModelConfigT = Static<typeof ModelConfig>;
export type RouteConfigT = Static<typeof RouteConfig>;
