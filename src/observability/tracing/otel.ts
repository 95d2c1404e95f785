// The OpenTelemetry SDK behind the Tracing interface: a tracer provider with the configured sampler and
// resource, a BatchSpanProcessor and the OTLP/HTTP exporter of the configured protocol. Imported only
// when tracing is on (deps.ts), so a gateway without it never loads the SDK.
import { diag, DiagLogLevel, ROOT_CONTEXT, SpanKind, type TextMapGetter } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from "@opentelemetry/sdk-trace-base";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { Logger } from "../../platform/logger";
import { raceDeadline } from "../../platform/deadline";
import type { CallSpan, Tracing } from "./types";
import type { SamplerName, TracingSettings } from "./settings";
import { OtelCallSpan, type SpanHost } from "./call-span";
import { A, operationOf } from "./attributes";

/** How long shutdown waits for the last batch to reach the collector. */
const SHUTDOWN_MS = 5_000;

const SAMPLERS: Record<SamplerName, (ratio: number) => Sampler> = {
  always_on: () => new AlwaysOnSampler(),
  always_off: () => new AlwaysOffSampler(),
  traceidratio: (r) => new TraceIdRatioBasedSampler(r),
  parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
  parentbased_traceidratio: (r) => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(r) }),
};

const headerGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  // The W3C propagator asks for its two headers by name only.
  keys: () => ["traceparent", "tracestate"],
};

/** Host and port of each upstream base URL, parsed once (the catalog bounds how many there are). */
function serverCache(): SpanHost["serverOf"] {
  const known = new Map<string, { address: string; port: number }>();
  return (url) => {
    let s = known.get(url);
    if (s === undefined) {
      const u = new URL(url);
      s = { address: u.hostname, port: u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80 };
      if (known.size < 4096) known.set(url, s);
    }
    return s;
  };
}

export function startTracing(settings: TracingSettings, recordContent: boolean, logger: Logger): Tracing {
  // The SDK reports export failures through its diagnostics channel: to the log, at warn and above.
  diag.setLogger(
    {
      error: (msg) => logger.warn("tracing: " + msg),
      warn: (msg) => logger.warn("tracing: " + msg),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const Exporter = settings.protocol === "http/json" ? JsonExporter : ProtobufExporter;
  const exporter = new Exporter({
    url: settings.url,
    headers: settings.headers,
    ...(settings.timeoutMillis === undefined ? {} : { timeoutMillis: settings.timeoutMillis }),
  });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ ...settings.resource, [ATTR_SERVICE_NAME]: settings.serviceName }),
    sampler: SAMPLERS[settings.sampler.name](settings.sampler.ratio),
    spanProcessors: [new BatchSpanProcessor(exporter, settings.batch)],
  });
  const propagator = new W3CTraceContextPropagator();
  const host: SpanHost = { tracer: provider.getTracer("switchyard"), recordContent, serverOf: serverCache() };
  logger.info("tracing on", { endpoint: settings.url, protocol: settings.protocol, sampler: settings.sampler.name });
  return {
    startCall(headers: Headers | undefined, endpoint: string): CallSpan {
      const parent = headers ? propagator.extract(ROOT_CONTEXT, headers, headerGetter) : ROOT_CONTEXT;
      const operation = operationOf(endpoint);
      const span = host.tracer.startSpan(operation, { kind: SpanKind.SERVER, attributes: { [A.operation]: operation } }, parent);
      return new OtelCallSpan(host, span, parent, operation);
    },
    async shutdown() {
      const timedOut = await raceDeadline([provider.shutdown()], SHUTDOWN_MS);
      if (timedOut) logger.warn("tracing: spans not exported before shutdown", { endpoint: settings.url });
    },
  };
}
