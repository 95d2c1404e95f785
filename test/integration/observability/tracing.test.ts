// Issue 56 item 2: OpenTelemetry traces. A gateway pointed at a loopback OTLP/HTTP receiver exports one
// SERVER span per call, continuing the client's traceparent, and one CLIENT span per upstream attempt
// under it, with the GenAI conventions' attributes; no span holds a key or the messages' text unless
// `tracing.record_content` says so. The batch processor's schedule delay is short so exports come soon.
import { eventually } from "../../support/spawn";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";
import { SPAN_KIND, startOtlpReceiver, type ExportedSpan, type OtlpReceiver } from "./otlp-receiver";

const PROMPT = "tell me about the violet heron 7731";
const ANSWER = "the heron answer 4406 is here";
const PLATFORM_KEYS = ["sk-alpha-platform-0123456789", "sk-gamma-platform-0123456789", "sk-beta-platform-0123456789"];

const hex = (n: number) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");

function otelEnv(url: string, protocol: string): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_BSP_SCHEDULE_DELAY: "20" };
}

function chat(g: TestGateway, body: Record<string, unknown>, traceparent: string): Promise<Response> {
  return g.s.fetch("/v1/chat/completions", {
    method: "POST",
    headers: { traceparent, tracestate: "vendor=opaque" },
    body: JSON.stringify({ max_tokens: 64, messages: [{ role: "user", content: PROMPT }], ...body }),
  });
}

/** The call's spans: its SERVER span (parented by the client's span) and its CLIENT spans. */
function callSpans(spans: ExportedSpan[], traceId: string) {
  const mine = spans.filter((s) => s.traceId === traceId);
  return { server: mine.filter((s) => s.kind === SPAN_KIND.SERVER), clients: mine.filter((s) => s.kind === SPAN_KIND.CLIENT) };
}

function settledCall(traceId: string, clients: number) {
  return (spans: ExportedSpan[]) => {
    const c = callSpans(spans, traceId);
    return c.server.length === 1 && c.clients.length === clients;
  };
}

/** Everything the receiver got, as text (protobuf strings are UTF-8 in the bytes too). */
function allText(r: OtlpReceiver): string {
  return r.exports.map((e) => new TextDecoder().decode(e.body)).join("\n");
}

describe("traces over OTLP/HTTP (http/json)", () => {
  let receiver: OtlpReceiver;
  let g: TestGateway;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    g = await startGateway({
      env: {
        ...otelEnv(receiver.url, "http/json"),
        OTEL_SERVICE_NAME: "gateway-under-test",
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector-token=t%20123",
      },
    });
  });
  afterAll(async () => {
    await g.stop();
    await receiver.stop();
  });

  test("a JSON call: a SERVER span continuing the client's trace, one CLIENT span under it, GenAI attributes", async () => {
    g.mock.setScript({ provider: "alpha" }, { kind: "reply", text: ANSWER });
    const traceId = hex(16);
    const parentId = hex(8);
    const r = await chat(g, { model: "acme/openai-only" }, `00-${traceId}-${parentId}-01`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as { id: string; model: string; usage: { prompt_tokens: number; completion_tokens: number } };
    const spans = await receiver.waitFor(settledCall(traceId, 1));
    const { server, clients } = callSpans(spans, traceId);
    const s = server[0]!;
    const c = clients[0]!;
    expect(s.name).toBe("chat acme/openai-only");
    expect(s.parentSpanId).toBe(parentId);
    // The client's tracestate continues with its trace.
    expect(s.traceState).toBe("vendor=opaque");
    expect(s.resource["service.name"]).toBe("gateway-under-test");
    expect(s.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "alpha",
      "gen_ai.request.model": "acme/openai-only",
      "gen_ai.request.max_tokens": 64,
      "gen_ai.response.id": body.id,
      "gen_ai.response.finish_reasons": ["stop"],
      "gen_ai.usage.input_tokens": body.usage.prompt_tokens,
      "gen_ai.usage.output_tokens": body.usage.completion_tokens,
      "gen_ai.usage.cache_read.input_tokens": 0,
      "switchyard.routing.strategy": expect.any(String),
      "switchyard.cost.microdollars": expect.any(Number),
      "switchyard.attempt": 1,
    });
    expect(s.attributes["error.type"]).toBeUndefined();
    expect(c.name).toBe("chat alpha-solo");
    expect(c.parentSpanId).toBe(s.spanId);
    expect(c.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "alpha",
      "gen_ai.request.model": "alpha-solo",
      "gen_ai.response.model": expect.any(String),
      "gen_ai.response.id": body.id,
      "server.address": "127.0.0.1",
      "switchyard.attempt": 1,
    });
    expect(c.attributes["gen_ai.usage.output_tokens"]).toBe(body.usage.completion_tokens);
    // The request's log line carries the trace (it is written after the response: polled).
    const hasLine = () => g.s.logs.some((l) => l.includes('"msg":"request"') && l.includes(`"trace_id":"${traceId}"`));
    expect(await eventually(hasLine)).toBe(true);
  });

  // A translated stream (Anthropic wire) and one whose plain chunks pass through unparsed (the chat wire).
  for (const [model, provider, routeModel] of [
    ["acme/anthropic-only", "beta", "claude-solo"],
    ["acme/openai-only", "alpha", "alpha-solo"],
  ] as const)
    test(`a streamed call (${model}): the spans end with the stream, with its finish reason and usage`, async () => {
      g.mock.setScript({ provider }, { kind: "reply", text: ANSWER });
      const traceId = hex(16);
      const parentId = hex(8);
      const r = await chat(g, { model, stream: true, stream_options: { include_usage: true } }, `00-${traceId}-${parentId}-01`);
      expect(r.status).toBe(200);
      const text = await r.text();
      expect(text).toContain("[DONE]");
      const spans = await receiver.waitFor(settledCall(traceId, 1));
      const { server, clients } = callSpans(spans, traceId);
      const s = server[0]!;
      expect(s.name).toBe(`chat ${model}`);
      expect(s.parentSpanId).toBe(parentId);
      expect(s.attributes).toMatchObject({
        "gen_ai.provider.name": provider,
        "gen_ai.response.finish_reasons": ["stop"],
        "gen_ai.response.model": expect.any(String),
        "switchyard.attempt": 1,
      });
      // Read before any asymmetric matcher touches the object (Bun's toMatchObject writes them into it).
      expect(typeof s.attributes["switchyard.cost.microdollars"]).toBe("number");
      expect(s.attributes["gen_ai.usage.output_tokens"] as number).toBeGreaterThan(0);
      expect(s.attributes["gen_ai.response.id"]).toEqual(expect.any(String));
      expect(s.attributes["error.type"]).toBeUndefined();
      expect(clients[0]!.parentSpanId).toBe(s.spanId);
      expect(clients[0]!.name).toBe(`chat ${routeModel}`);
    });

  test("a fallback: two CLIENT spans under the SERVER span, the first with its error.type", async () => {
    g.mock.setScript({ provider: "gamma" }, { kind: "error", status: 500 });
    g.mock.setScript({ provider: "alpha" }, { kind: "reply", text: ANSWER });
    const traceId = hex(16);
    const parentId = hex(8);
    const models = ["acme/gemini-only", "acme/openai-only"];
    const r = await chat(g, { gateway: { models, routing: { mode: "fallback" } } }, `00-${traceId}-${parentId}-01`);
    expect(r.status).toBe(200);
    const spans = await receiver.waitFor(settledCall(traceId, 2));
    const { server, clients } = callSpans(spans, traceId);
    const s = server[0]!;
    expect(s.parentSpanId).toBe(parentId);
    expect(s.attributes).toMatchObject({
      "gen_ai.provider.name": "alpha",
      "switchyard.attempt": 2,
      "switchyard.routing.strategy": expect.any(String),
    });
    const byAttempt = [...clients].sort(
      (a, b) => (a.attributes["switchyard.attempt"] as number) - (b.attributes["switchyard.attempt"] as number),
    );
    expect(byAttempt.map((c) => c.parentSpanId)).toEqual([s.spanId, s.spanId]);
    expect(byAttempt[0]!.attributes).toMatchObject({
      "gen_ai.provider.name": "gamma",
      "switchyard.attempt": 1,
      "error.type": "provider_error",
      "http.response.status_code": 500,
    });
    expect(byAttempt[0]!.status?.code).toBe(2);
    expect(byAttempt[1]!.attributes).toMatchObject({ "gen_ai.provider.name": "alpha", "switchyard.attempt": 2 });
    expect(byAttempt[1]!.attributes["error.type"]).toBeUndefined();
  });

  test("a call refused before any attempt: the SERVER span alone, with its error.type", async () => {
    const traceId = hex(16);
    const r = await chat(g, { model: "acme/no-such-model" }, `00-${traceId}-${hex(8)}-01`);
    expect(r.status).toBe(404);
    const spans = await receiver.waitFor(settledCall(traceId, 0));
    expect(callSpans(spans, traceId).server[0]!.attributes["error.type"]).toBe((await r.json()).error.code);
  });

  test("the exporter sends OTEL_EXPORTER_OTLP_HEADERS; a client's unsampled trace is not exported (parent-based sampling)", async () => {
    g.mock.setScript({ provider: "alpha" }, { kind: "reply", text: ANSWER });
    const unsampled = hex(16);
    expect((await chat(g, { model: "acme/openai-only" }, `00-${unsampled}-${hex(8)}-00`)).status).toBe(200);
    const sampled = hex(16);
    expect((await chat(g, { model: "acme/openai-only" }, `00-${sampled}-${hex(8)}-01`)).status).toBe(200);
    // Spans are exported in the order they end: once the later call's are in, the earlier one's would be.
    const spans = await receiver.waitFor(settledCall(sampled, 1));
    expect(spans.some((s) => s.traceId === unsampled)).toBe(false);
    expect(receiver.exports.every((e) => e.headers.get("x-collector-token") === "t 123")).toBe(true);
  });

  test("no span holds the client's key, a provider key or the messages' text", () => {
    const text = allText(receiver);
    expect(text).toContain("gen_ai.operation.name");
    for (const secret of [g.s.adminKey, ...PLATFORM_KEYS, PROMPT, ANSWER, "violet heron", "heron answer"])
      expect(text).not.toContain(secret);
  });
});

describe("traces over OTLP/HTTP (http/protobuf, the default) with record_content", () => {
  let receiver: OtlpReceiver;
  let g: TestGateway;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const env = otelEnv(receiver.url, "http/protobuf");
    delete (env as Record<string, string | undefined>).OTEL_EXPORTER_OTLP_PROTOCOL;
    g = await startGateway({ env, config: { tracing: { record_content: true } } });
  });
  afterAll(async () => {
    await g.stop();
    await receiver.stop();
  });

  test("the export is protobuf and, with record_content on, carries the prompt and the completion (never a key)", async () => {
    g.mock.setScript({ provider: "alpha" }, { kind: "reply", text: ANSWER });
    const traceId = hex(16);
    const r = await chat(g, { model: "acme/openai-only" }, `00-${traceId}-${hex(8)}-01`);
    expect(r.status).toBe(200);
    const deadline = Date.now() + 10_000;
    while (!allText(receiver).includes("chat alpha-solo") && Date.now() < deadline) await Bun.sleep(20);
    expect(receiver.exports.length).toBeGreaterThan(0);
    expect(receiver.exports.every((e) => e.contentType === "application/x-protobuf" && e.body.length > 0)).toBe(true);
    const text = allText(receiver);
    // The trace ID travels as its 16 bytes.
    const bytes = Buffer.concat(receiver.exports.map((e) => Buffer.from(e.body)));
    expect(bytes.includes(Buffer.from(traceId, "hex"))).toBe(true);
    for (const s of [
      "chat acme/openai-only",
      "chat alpha-solo",
      "gen_ai.input.messages",
      "gen_ai.output.messages",
      PROMPT,
      ANSWER,
      "switchyard",
    ])
      expect(text).toContain(s);
    for (const secret of [g.s.adminKey, ...PLATFORM_KEYS]) expect(text).not.toContain(secret);
  });
});
