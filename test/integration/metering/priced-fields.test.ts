// Pass-through fields that change the price (issue 52 item 5): on a platform-key call a dearer
// service tier or a provider-run tool billed per call is dropped with an unsupported_parameter
// warning (the catalog prices the standard tier only), from the body and from extensions; BYOK calls,
// which the workspace pays for directly, keep them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());

type Answer = { routing_metadata?: { warnings?: { type: string; code: string }[] } };

async function call(path: string, body: Record<string, unknown>): Promise<{ sent: Record<string, unknown>; warnings: string[] }> {
  g.mock.reset();
  const r = await g.s.fetch(path, { method: "POST", body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  const answer = (await r.json()) as Answer;
  const sent = g.mock.requests.find((x) => x.route === "chat" || x.route === "responses")!.body as Record<string, unknown>;
  const warnings = (answer.routing_metadata?.warnings ?? []).filter((w) => w.type === "unsupported_parameter").map((w) => w.code);
  return { sent, warnings };
}

const chat = (more: Record<string, unknown>) =>
  call("/v1/chat/completions", { model: "acme/openai-only", messages: [{ role: "user", content: "hi" }], ...more });

describe("priced pass-through fields", () => {
  test("platform key: service_tier priority and web_search_options are dropped with unsupported_parameter warnings", async () => {
    const { sent, warnings } = await chat({ service_tier: "priority", web_search_options: {} });
    expect(sent.service_tier).toBeUndefined();
    expect(sent.web_search_options).toBeUndefined();
    expect(warnings).toEqual(expect.arrayContaining(["service_tier", "web_search_options"]));
  });

  test("platform key: extensions cannot smuggle a dearer tier or provider-run tools past the check", async () => {
    const { sent, warnings } = await chat({
      extensions: { alpha: { service_tier: "flex", tools: [{ type: "web_search" }, { type: "function", function: { name: "f" } }] } },
    });
    expect(sent.service_tier).toBeUndefined();
    expect(sent.tools).toEqual([{ type: "function", function: { name: "f" } }]);
    expect(warnings).toEqual(expect.arrayContaining(["service_tier", "tools"]));
  });

  test("platform key, native Responses call: a built-in tool the client executes itself (execution: client) stays, the provider-run one is dropped", async () => {
    const toolSearch = { type: "tool_search", execution: "client", description: "find tools" };
    const { sent, warnings } = await call("/v1/responses", {
      model: "acme/dual",
      input: "hi",
      tools: [toolSearch, { type: "web_search" }],
    });
    expect(sent.tools).toEqual([toolSearch]);
    expect(warnings).toEqual(["tools"]);
  });

  test("the standard tier passes unchanged and warns nothing", async () => {
    const { sent, warnings } = await chat({ service_tier: "default" });
    expect(sent.service_tier).toBe("default");
    expect(warnings).toEqual([]);
  });

  test("BYOK key: the workspace pays the provider, so priced fields pass through", async () => {
    const created = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/byok-keys`, {
      method: "POST",
      body: JSON.stringify({ provider: "alpha", api_key: "sk-byok-alpha-0123456789" }),
    });
    expect(created.status).toBe(201);
    const { sent, warnings } = await chat({ service_tier: "priority", extensions: { alpha: { tools: [{ type: "web_search" }] } } });
    expect(sent.service_tier).toBe("priority");
    expect(sent.tools).toEqual([{ type: "web_search" }]);
    expect(warnings).toEqual([]);
  });
});
