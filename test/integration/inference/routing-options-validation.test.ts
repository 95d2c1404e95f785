// Every invalid value of a gateway.routing option is a 400 whose `param` names the field, on all three
// interfaces (chat is checked by its route schema, responses and messages by checkGatewayFields).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());
beforeEach(() => g.mock.reset());

type Err = { error: { code: string; param: string | null; message: string } };
async function post(path: string, body: unknown) {
  const r = await g.s.fetch(path, { method: "POST", body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Err };
}
const chat = (routing: unknown) =>
  post("/v1/chat/completions", { model: "acme/chat", messages: [{ role: "user", content: "hi" }], gateway: { routing } });

const ids = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);
const invalid: [string, Record<string, unknown>, string][] = [
  ["a negative min_throughput_tps", { min_throughput_tps: -1 }, "gateway.routing.min_throughput_tps"],
  ["a string min_throughput_tps", { min_throughput_tps: "fast" }, "gateway.routing.min_throughput_tps"],
  ["a ttft_percentile that is not p50 or p95", { ttft_percentile: "p99" }, "gateway.routing.ttft_percentile"],
  ["a numeric throughput_percentile", { throughput_percentile: 50 }, "gateway.routing.throughput_percentile"],
  ["a min_success_rate over 1", { min_success_rate: 1.5 }, "gateway.routing.min_success_rate"],
  ["a negative min_success_rate", { min_success_rate: -0.1 }, "gateway.routing.min_success_rate"],
  ["prefer that is not an array", { prefer: "alpha" }, "gateway.routing.prefer"],
  ["an empty provider ID in prefer", { prefer: ["alpha", ""] }, "gateway.routing.prefer[1]"],
  ["a number among providers", { providers: ["alpha", "beta", 3] }, "gateway.routing.providers[2]"],
  ["more than 100 providers", { providers: ids(101) }, "gateway.routing.providers"],
  ["more than 100 exclude_providers", { exclude_providers: ids(101) }, "gateway.routing.exclude_providers"],
  [
    "a provider ID over 100 characters in exclude_providers",
    { exclude_providers: ["x".repeat(101)] },
    "gateway.routing.exclude_providers[0]",
  ],
  ["a string only_byok", { only_byok: "yes" }, "gateway.routing.only_byok"],
  ["a numeric only_platform", { only_platform: 1 }, "gateway.routing.only_platform"],
  ["a null require_parameters", { require_parameters: null }, "gateway.routing.require_parameters"],
  ["an unknown routing option", { fastest: true }, "gateway.routing.fastest"],
];

describe("gateway.routing options: each invalid value is a 400 naming it", () => {
  for (const [name, routing, param] of invalid) {
    test(`chat completions: ${name} → 400 ${param}`, async () => {
      const r = await chat(routing);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: "invalid_parameter", param });
      expect(g.mock.requests).toHaveLength(0);
    });
  }

  for (const [name, routing, param] of invalid) {
    test(`responses: ${name} → 400 ${param}`, async () => {
      const r = await post("/v1/responses", { model: "acme/chat", input: "hi", gateway: { routing } });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: "invalid_parameter", param });
      expect(r.body.error.message).toStartWith(`'${param}'`);
      expect(g.mock.requests).toHaveLength(0);
    });
  }

  test("messages: the Anthropic-shaped 400 names the field in its message", async () => {
    const r = await g.s.fetch("/v1/messages", {
      method: "POST",
      body: JSON.stringify({
        model: "acme/chat",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
        gateway: { routing: { ttft_percentile: "p99" } },
      }),
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { type: string; error: { type: string; message: string } };
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toBe(`'gateway.routing.ttft_percentile' must be "p50" or "p95".`);
  });

  test("every option at a valid value is accepted by the schema (the call is served)", async () => {
    const r = await chat({
      min_throughput_tps: 0,
      ttft_percentile: "p95",
      throughput_percentile: "p50",
      min_success_rate: 0,
      prefer: ["alpha"],
      providers: ["alpha", "beta", "gamma"],
      exclude_providers: [],
      only_byok: false,
      only_platform: false,
      require_parameters: false,
    });
    expect(r.status).toBe(200);
  });
});
