// Issue 54 item 8: every interface's routing_metadata (chat, Responses, Messages; JSON and stream; native
// and translated) carries the estimates the router ranked the served route on and whether it was an
// exploration or a sticky pick, and those estimates are the ones GET /v1/routing/health shows.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";

interface Meta {
  provider: string;
  provider_model_id: string;
  ttft_ms_estimate: number;
  throughput_tps_estimate: number;
  exploration: boolean;
  sticky: boolean;
}

let g: TestGateway;
beforeAll(async () => {
  // A fresh gateway: every route starts at its prior.
  g = await startGateway();
});
afterAll(() => g.stop());

const PATHS = { chat: "/v1/chat/completions", responses: "/v1/responses", messages: "/v1/messages" } as const;
type Api = keyof typeof PATHS;

/** A new conversation each time (its own first message), so no call continues another's session. */
function body(api: Api, model: string, stream: boolean): Record<string, unknown> {
  const content = `hi ${crypto.randomUUID()}`;
  if (api === "responses") return { model, input: content, stream };
  return { model, max_tokens: 50, stream, messages: [{ role: "user", content }] };
}

/** The routing_metadata of a JSON answer, or of the one stream event carrying it (top level or in `response`). */
async function metadataOf(api: Api, model: string, stream: boolean, headers: Record<string, string> = {}): Promise<Meta> {
  const r = await g.s.fetch(PATHS[api], { method: "POST", body: JSON.stringify(body(api, model, stream)), headers });
  const text = await r.text();
  expect(`${r.status} ${text.slice(0, 200)}`).toStartWith("200");
  if (!stream) return (JSON.parse(text) as { routing_metadata: Meta }).routing_metadata;
  const found: Meta[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const data = JSON.parse(line.slice(6)) as { routing_metadata?: Meta; response?: { routing_metadata?: Meta } };
    const meta = data.routing_metadata ?? data.response?.routing_metadata;
    if (meta) found.push(meta);
  }
  expect(found).toHaveLength(1);
  return found[0]!;
}

interface Health {
  provider: string;
  provider_model_id: string;
  estimates: { ttft_ms: { p50: number }; throughput_tps: { p50: number } };
  prior: { ttft_ms: number; throughput_tps: number };
}

async function health(key: string): Promise<Health> {
  const r = await g.s.fetch("/v1/routing/health");
  expect(r.status).toBe(200);
  const routes = ((await r.json()) as { routes: Health[] }).routes;
  return routes.find((x) => `${x.provider}/${x.provider_model_id}` === key)!;
}

test("the first call on a route reports its priors as the estimates", async () => {
  const before = await health("gamma/gemini-solo");
  const meta = await metadataOf("chat", "acme/gemini-only", false);
  expect(meta).toMatchObject({
    provider: "gamma",
    ttft_ms_estimate: Math.round(before.prior.ttft_ms),
    throughput_tps_estimate: Math.round(before.prior.throughput_tps * 10) / 10,
    exploration: false,
    sticky: false,
  });
});

// [interface, model, route it is served by (native or translated)]
const CASES: [Api, string, string][] = [
  ["chat", "acme/openai-only", "alpha/alpha-solo"],
  ["chat", "acme/anthropic-only", "beta/claude-solo"],
  ["responses", "acme/openai-only", "alpha/alpha-solo"],
  ["responses", "acme/dual", "delta/delta-dual"],
  ["messages", "acme/anthropic-only", "beta/claude-solo"],
  ["messages", "acme/openai-only", "alpha/alpha-solo"],
];

describe("routing_metadata carries the ranked estimates", () => {
  for (const [api, model, key] of CASES) {
    for (const stream of [false, true]) {
      test(`${api} ${stream ? "stream" : "JSON"} through ${key}`, async () => {
        const before = await health(key);
        const meta = await metadataOf(api, model, stream);
        expect(`${meta.provider}/${meta.provider_model_id}`).toBe(key);
        expect(Number.isInteger(meta.ttft_ms_estimate)).toBe(true);
        expect(Math.round(meta.throughput_tps_estimate * 10)).toBe(meta.throughput_tps_estimate * 10);
        // What the health view showed just before the call (the estimates drift by a hair as samples age).
        expect(Math.abs(meta.ttft_ms_estimate - before.estimates.ttft_ms.p50)).toBeLessThanOrEqual(1);
        expect(Math.abs(meta.throughput_tps_estimate - before.estimates.throughput_tps.p50)).toBeLessThanOrEqual(0.11);
        // One route per model: nothing to explore, and no session to stick to.
        expect(meta.exploration).toBe(false);
        expect(meta.sticky).toBe(false);
      });
    }
  }
});

test("after measurements the estimate follows them, away from the prior", async () => {
  for (let i = 0; i < 3; i++) await metadataOf("chat", "acme/openai-only", true);
  const now = await health("alpha/alpha-solo");
  const meta = await metadataOf("chat", "acme/openai-only", true);
  // The mock answers within milliseconds; the prior is hundreds.
  expect(meta.ttft_ms_estimate).toBeLessThan(now.prior.ttft_ms / 2);
  expect(Math.abs(meta.ttft_ms_estimate - now.estimates.ttft_ms.p50)).toBeLessThanOrEqual(1);
});

test("a conversation's next turn on the route holding its prompt cache says sticky", async () => {
  // beta/claude-solo reads cached input at 0.3 against 3 per 1M: a conversation that began there stays.
  const session = { "x-session-id": `conv-${crypto.randomUUID()}` };
  const first = await metadataOf("messages", "acme/anthropic-only", false, session);
  expect(first.sticky).toBe(false);
  for (const [api, stream] of [
    ["messages", true],
    ["messages", false],
    ["chat", true],
  ] as const) {
    const next = await metadataOf(api, "acme/anthropic-only", stream, session);
    expect(`${api} ${stream} ${next.provider_model_id} sticky=${next.sticky}`).toBe(`${api} ${stream} claude-solo sticky=true`);
    expect(next.exploration).toBe(false);
  }
});
