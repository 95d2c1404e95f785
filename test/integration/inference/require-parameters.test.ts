// carriesEveryParameter() on the real pipeline's deps and plans: a route qualifies for require_parameters
// only when its adapter sends everything the request uses (alpha speaks OpenAI, beta Anthropic, gamma
// Gemini, all serving acme/chat), when the platform key would not strip a priced field, and when a
// translated body lost nothing on its way in.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";
import { callContext } from "../../../src/inference/call";
import { prepareCall, type IncomingCall } from "../../../src/inference/prepare";
import { carriesEveryParameter } from "../../../src/inference/require-parameters";
import type { Warning } from "../../../src/providers/types";

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());

const messages = [{ role: "user" as const, content: "hi" }];

/** provider → whether an attempt on its acme/chat route carries every parameter (JSON and stream alike). */
function carried(call: IncomingCall, endpoint = "chat_completions"): Record<string, boolean> {
  const deps = g.s.deps.inference;
  const ctx = callContext(
    {
      requestId: "req_test",
      workspaceId: g.s.workspaceId,
      apiKeyId: "key_test",
      endpoint: "chat_completions",
      request: new Request("http://local/v1/chat/completions", { method: "POST" }),
    },
    undefined,
  );
  const prepared = prepareCall(deps, ctx, call, "chat_completions");
  const out: Record<string, boolean> = {};
  for (const c of prepared.candidates) {
    const json = carriesEveryParameter(deps, g.s.workspaceId, prepared, c, false, endpoint);
    expect(carriesEveryParameter(deps, g.s.workspaceId, prepared, c, true, endpoint)).toBe(json);
    out[c.provider.id] = json;
  }
  return out;
}

describe("carriesEveryParameter", () => {
  test("a request every adapter can express: every route carries it", () => {
    expect(carried({ request: { model: "acme/chat", messages, temperature: 0.5, max_tokens: 20 } })).toEqual({
      alpha: true,
      beta: true,
      gamma: true,
    });
  });

  test("logit_bias: only the OpenAI-compatible route carries it (Anthropic and Gemini drop it)", () => {
    expect(carried({ request: { model: "acme/chat", messages, logit_bias: { "50256": -100 } } })).toEqual({
      alpha: true,
      beta: false,
      gamma: false,
    });
  });

  test("seed: OpenAI and Gemini carry it, Anthropic drops it", () => {
    expect(carried({ request: { model: "acme/chat", messages, seed: 7 } })).toEqual({ alpha: true, beta: false, gamma: true });
  });

  test("a value an adapter clamps counts as not carried (Anthropic's temperature ceiling is 1)", () => {
    expect(carried({ request: { model: "acme/chat", messages, temperature: 1.5 } })).toEqual({ alpha: true, beta: false, gamma: true });
  });

  test("what the ingress translation dropped disqualifies every translated attempt, but not a native one", () => {
    const dropped: Warning[] = [{ type: "unsupported_parameter", code: "truncation", message: '"truncation" was dropped.' }];
    expect(carried({ request: { model: "acme/chat", messages }, warnings: dropped })).toEqual({ alpha: false, beta: false, gamma: false });
    // A Messages body goes to the Anthropic route as the client wrote it: the translation's losses do not apply there.
    const native = {
      request: {
        wire: "anthropic" as const,
        body: { model: "acme/chat", max_tokens: 20, messages: [{ role: "user", content: "hi" }] },
        headers: {},
      },
    };
    expect(carried({ request: { model: "acme/chat", messages }, warnings: dropped, native })).toEqual({
      alpha: false,
      beta: true,
      gamma: false,
    });
  });

  test("a priced field is dropped on the platform's key (not carried) and kept on the workspace's BYOK key", async () => {
    const call: IncomingCall = { request: { model: "acme/chat", messages, service_tier: "priority" } };
    expect(carried(call).alpha).toBe(false);
    const created = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/byok-keys`, {
      method: "POST",
      body: JSON.stringify({ provider: "alpha", api_key: "sk-alpha-byok-0123456789" }),
    });
    expect(created.status).toBe(201);
    expect(carried(call).alpha).toBe(true);
  });
});

describe("require_parameters through the API", () => {
  const ask = (routing: Record<string, unknown>) =>
    g.s
      .fetch("/v1/chat/completions", {
        method: "POST",
        body: JSON.stringify({
          model: "acme/chat",
          messages,
          logit_bias: { "50256": -100 },
          gateway: { routing: { optimize: "cost", ...routing } },
        }),
      })
      .then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, any> }));

  test("only a route that carries every parameter serves the call, and it warns about nothing", async () => {
    const r = await ask({ require_parameters: true });
    expect(r.status).toBe(200);
    expect(r.body.routing_metadata.provider).toBe("alpha");
    expect(r.body.routing_metadata.warnings).toEqual([]);
  });

  test("none left: 400 no_eligible_route naming gateway.routing.require_parameters; without it the call is served with a warning", async () => {
    const refused = await ask({ require_parameters: true, exclude_providers: ["alpha"] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "no_eligible_route", param: "gateway.routing.require_parameters" });
    const served = await ask({ exclude_providers: ["alpha"] });
    expect(served.status).toBe(200);
    expect(served.body.routing_metadata.warnings.map((w: { code: string }) => w.code)).toContain("logit_bias");
  });
});
