// The standard OTEL_* variables the tracer honours, read from the config's copy of them (config/load.ts):
// tracing is on when an OTLP endpoint is set (and OTEL_SDK_DISABLED is not true). No SDK import here:
// deps.ts decides with this whether to load the SDK at all.
import { ConfigError } from "../../config/load";

export type OtlpProtocol = "http/json" | "http/protobuf";

const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

export interface TracingSettings {
  /** Where spans are POSTed: the traces endpoint as given, or the general endpoint + `/v1/traces`. */
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, decoded. */
  resource: Record<string, string>;
  sampler: { name: SamplerName; ratio: number };
  /** The BatchSpanProcessor's OTEL_BSP_* settings that are set. */
  batch: { scheduledDelayMillis?: number; maxQueueSize?: number; maxExportBatchSize?: number; exportTimeoutMillis?: number };
  timeoutMillis?: number;
}

/** `k=v,k2=v2` with URL-encoded parts (the OTLP headers and resource attributes format). */
export function keyValueList(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!text) return out;
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const key = decodeURIComponent(pair.slice(0, at).trim());
    if (key) out[key] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}

function number(env: Readonly<Record<string, string>>, name: string): number | undefined {
  const v = env[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${name} must be a non-negative number, got ${JSON.stringify(v)}`);
  return n;
}

function protocolOf(env: Readonly<Record<string, string>>): OtlpProtocol {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const v = env[name] ?? "http/protobuf";
  if (v === "http/json" || v === "http/protobuf") return v;
  throw new ConfigError(`${name} must be http/protobuf or http/json (the gateway exports over OTLP/HTTP), got ${JSON.stringify(v)}`);
}

function samplerOf(env: Readonly<Record<string, string>>): TracingSettings["sampler"] {
  const name = (env.OTEL_TRACES_SAMPLER ?? "parentbased_always_on") as SamplerName;
  if (!SAMPLERS.includes(name))
    throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(", ")}, got ${JSON.stringify(name)}`);
  const ratio = number(env, "OTEL_TRACES_SAMPLER_ARG") ?? 1;
  if (ratio > 1) throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be between 0 and 1, got ${ratio}`);
  return { name, ratio };
}

function defined<T extends Record<string, number | undefined>>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const k in o) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** The tracer's settings, or null when tracing is off (no endpoint). Invalid values refuse to start. */
export function tracingSettings(env: Readonly<Record<string, string>>): TracingSettings | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return null;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!traces && !base) return null;
  const url = traces ?? `${base!.replace(/\/+$/, "")}/v1/traces`;
  if (!/^https?:\/\//.test(url)) throw new ConfigError(`the OTLP traces endpoint must be an http(s) URL, got ${JSON.stringify(url)}`);
  const resource = keyValueList(env.OTEL_RESOURCE_ATTRIBUTES);
  const timeoutMillis = number(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") ?? number(env, "OTEL_EXPORTER_OTLP_TIMEOUT");
  return {
    url,
    protocol: protocolOf(env),
    headers: { ...keyValueList(env.OTEL_EXPORTER_OTLP_HEADERS), ...keyValueList(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    serviceName: env.OTEL_SERVICE_NAME || resource["service.name"] || "switchyard",
    resource,
    sampler: samplerOf(env),
    batch: defined({
      scheduledDelayMillis: number(env, "OTEL_BSP_SCHEDULE_DELAY"),
      maxQueueSize: number(env, "OTEL_BSP_MAX_QUEUE_SIZE"),
      maxExportBatchSize: number(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"),
      exportTimeoutMillis: number(env, "OTEL_BSP_EXPORT_TIMEOUT"),
    }),
    ...(timeoutMillis === undefined ? {} : { timeoutMillis }),
  };
}
