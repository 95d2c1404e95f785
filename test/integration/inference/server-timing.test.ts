// Issue 56 item 3: every inference answer says what the gateway itself took. `Server-Timing:
// gateway;dur=…, upstream;dur=…` on JSON answers and stream heads, and routing_metadata.gateway_overhead_ms,
// in each dialect, translated and native. The mock upstream waits before its status line, so the upstream's
// share has a floor the test knows.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";

const DELAY_MS = 50;
let g: TestGateway;

beforeAll(async () => {
  g = await startGateway();
});
afterAll(async () => {
  await g.stop();
});
beforeEach(() => {
  g.mock.reset();
  g.mock.setScript({}, { kind: "reply", text: "timed answer here", delayMs: DELAY_MS });
});

type Dialect = "chat" | "messages" | "responses";
const PATHS: Record<Dialect, string> = { chat: "/v1/chat/completions", messages: "/v1/messages", responses: "/v1/responses" };

function body(dialect: Dialect, model: string, stream: boolean): Record<string, unknown> {
  if (dialect === "responses") return { model, input: "hello", stream };
  return { model, max_tokens: 50, messages: [{ role: "user", content: "hello" }], stream };
}

function call(dialect: Dialect, model: string, stream: boolean): Promise<Response> {
  const headers: Record<string, string> = dialect === "messages" ? { "anthropic-version": "2023-06-01" } : {};
  return g.s.fetch(PATHS[dialect], { method: "POST", headers, body: JSON.stringify(body(dialect, model, stream)) });
}

/** The two durations of a Server-Timing value, which must have exactly the gateway's shape. */
function serverTiming(res: Response): { gateway: number; upstream: number } {
  const value = res.headers.get("server-timing") ?? "";
  const m = /^gateway;dur=(\d+(?:\.\d{1,2})?), upstream;dur=(\d+(?:\.\d{1,2})?)$/.exec(value);
  expect(m, `Server-Timing: ${value}`).not.toBeNull();
  return { gateway: Number(m![1]), upstream: Number(m![2]) };
}

/** The last routing_metadata anywhere in an SSE body's events (each dialect carries it in its own place). */
function streamRouting(text: string): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined;
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    if (o.routing_metadata && typeof o.routing_metadata === "object") found = o.routing_metadata as Record<string, unknown>;
    for (const k in o) if (k !== "routing_metadata") visit(o[k]);
  };
  for (const line of text.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    visit(JSON.parse(line.slice(6)));
  }
  return found;
}

// Each dialect in front of a translated route and of a native one (the body passes through as sent).
const CASES: [Dialect, string, "translated" | "native"][] = [
  ["chat", "acme/anthropic-only", "translated"],
  ["chat", "acme/openai-only", "native"],
  ["messages", "acme/openai-only", "translated"],
  ["messages", "acme/anthropic-only", "native"],
  ["responses", "acme/openai-only", "translated"],
  ["responses", "acme/dual", "native"],
];

describe("Server-Timing and gateway_overhead_ms", () => {
  for (const [dialect, model, how] of CASES) {
    test(`${dialect} JSON, ${how}: both durations, the upstream's at least its delay`, async () => {
      const r = await call(dialect, model, false);
      expect(r.status).toBe(200);
      const t = serverTiming(r);
      expect(t.upstream).toBeGreaterThanOrEqual(DELAY_MS);
      expect(t.gateway).toBeGreaterThanOrEqual(0);
      expect(t.gateway).toBeLessThan(1_000);
      const json = (await r.json()) as { routing_metadata: { gateway_overhead_ms: number } };
      // The header and the answer's field are the same measurement of a JSON answer.
      expect(json.routing_metadata.gateway_overhead_ms).toBe(t.gateway);
    });

    test(`${dialect} stream, ${how}: the head's durations, and the final routing_metadata's overhead`, async () => {
      const r = await call(dialect, model, true);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toContain("text/event-stream");
      const t = serverTiming(r);
      // Until the first content: the mock's delay comes before its status line.
      expect(t.upstream).toBeGreaterThanOrEqual(DELAY_MS);
      expect(t.gateway).toBeGreaterThanOrEqual(0);
      expect(t.gateway).toBeLessThan(1_000);
      const routing = streamRouting(await r.text());
      expect(routing).toBeDefined();
      const overhead = routing!.gateway_overhead_ms as number;
      expect(typeof overhead).toBe("number");
      expect(overhead).toBeGreaterThanOrEqual(0);
      expect(overhead).toBeLessThan(1_000);
      expect(Math.round(overhead * 100) / 100).toBe(overhead);
    });
  }

  // Two of acme/chat's three routes fail after the delay: whichever the router tries first, a failure comes first.
  const failTwo = () => {
    for (const provider of ["alpha", "gamma"])
      g.mock.setScript({ provider }, { kind: "error", status: 503, message: "overloaded", delayMs: DELAY_MS });
    g.mock.setScript({ provider: "beta" }, { kind: "reply", text: "from beta", delayMs: DELAY_MS });
  };

  test("after a fallback the upstream's share is every attempt's: the failed ones' waits count too", async () => {
    failTwo();
    const r = await call("chat", "acme/chat", false);
    expect(r.status).toBe(200);
    const json = (await r.json()) as { routing_metadata: { provider: string; attempts: unknown[]; gateway_overhead_ms: number } };
    expect(json.routing_metadata.provider).toBe("beta");
    const tried = json.routing_metadata.attempts.length + 1;
    expect(tried).toBeGreaterThan(1);
    const t = serverTiming(r);
    expect(t.upstream).toBeGreaterThanOrEqual(tried * DELAY_MS);
    expect(json.routing_metadata.gateway_overhead_ms).toBe(t.gateway);
  });

  test("a streamed fallback's head counts the failed attempts and the served one's wait for its first content", async () => {
    failTwo();
    const r = await call("chat", "acme/chat", true);
    expect(r.status).toBe(200);
    const upstream = serverTiming(r).upstream;
    const routing = streamRouting(await r.text())!;
    expect(routing.provider).toBe("beta");
    const tried = (routing.attempts as unknown[]).length + 1;
    expect(tried).toBeGreaterThan(1);
    expect(upstream).toBeGreaterThanOrEqual(tried * DELAY_MS);
  });

  test("an error answer carries no Server-Timing (nothing was served)", async () => {
    g.mock.setScript({}, { kind: "error", status: 400, message: "bad" });
    const r = await call("chat", "acme/openai-only", false);
    expect(r.status).toBe(400);
    expect(r.headers.get("server-timing")).toBeNull();
  });
});
