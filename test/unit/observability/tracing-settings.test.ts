// The standard OTEL_* variables as the tracer reads them (observability/tracing/settings.ts).
import { describe, expect, test } from "bun:test";
import { keyValueList, tracingSettings } from "../../../src/observability/tracing/settings";
import { ConfigError } from "../../../src/config/load";

const BASE = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" };

describe("tracing settings", () => {
  test("off without an OTLP endpoint, or with OTEL_SDK_DISABLED=true", () => {
    expect(tracingSettings({})).toBeNull();
    expect(tracingSettings({ OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on" })).toBeNull();
    expect(tracingSettings({ ...BASE, OTEL_SDK_DISABLED: "TRUE" })).toBeNull();
  });

  test("the general endpoint gets /v1/traces; the traces endpoint is used as given", () => {
    expect(tracingSettings(BASE)!.url).toBe("http://collector:4318/v1/traces");
    expect(tracingSettings({ ...BASE, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://t.example/custom" })!.url).toBe(
      "https://t.example/custom",
    );
  });

  test("defaults: http/protobuf, service switchyard, parent-based always-on, the BSP's own delays", () => {
    expect(tracingSettings(BASE)).toMatchObject({
      protocol: "http/protobuf",
      serviceName: "switchyard",
      sampler: { name: "parentbased_always_on", ratio: 1 },
      batch: {},
      headers: {},
    });
  });

  test("protocol, service name, sampler with its argument, batch settings", () => {
    const s = tracingSettings({
      ...BASE,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "edge-gw",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "64",
    })!;
    expect(s).toMatchObject({ protocol: "http/json", serviceName: "edge-gw", sampler: { name: "parentbased_traceidratio", ratio: 0.25 } });
    expect(s.batch).toEqual({ scheduledDelayMillis: 200, maxExportBatchSize: 64 });
    expect(
      tracingSettings({ ...BASE, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" })!.protocol,
    ).toBe("http/protobuf");
  });

  test("headers: URL-decoded pairs, the traces-specific ones win", () => {
    expect(keyValueList("a=1, b = x%3Dy ,bad,=v")).toEqual({ a: "1", b: "x=y" });
    const s = tracingSettings({
      ...BASE,
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Basic%20abc,x-team=a",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-team=b",
    })!;
    expect(s.headers).toEqual({ authorization: "Basic abc", "x-team": "b" });
  });

  test("service.name from OTEL_RESOURCE_ATTRIBUTES when OTEL_SERVICE_NAME is not set", () => {
    const s = tracingSettings({ ...BASE, OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs,deployment.environment=prod" })!;
    expect(s.serviceName).toBe("from-attrs");
    expect(s.resource["deployment.environment"]).toBe("prod");
  });

  test("values the gateway cannot honour refuse to start, naming the variable", () => {
    expect(() => tracingSettings({ ...BASE, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json/,
    );
    expect(() => tracingSettings({ ...BASE, OTEL_TRACES_SAMPLER: "sometimes" })).toThrow(ConfigError);
    expect(() => tracingSettings({ ...BASE, OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" })).toThrow(
      /between 0 and 1/,
    );
    expect(() => tracingSettings({ ...BASE, OTEL_BSP_SCHEDULE_DELAY: "soon" })).toThrow(/OTEL_BSP_SCHEDULE_DELAY/);
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(/http\(s\) URL/);
  });
});
