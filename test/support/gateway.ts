// A gateway with a small, fully controlled catalog whose providers are the mock upstream: one model per
// wire protocol plus one model served by all three (for routing tests).
import { startMockUpstream, type MockUpstream } from "./mock-upstream";
import { startServer, type InProcessServer, type StartOptions } from "./server";

export interface TestGateway {
  s: InProcessServer;
  mock: MockUpstream;
  stop(): Promise<void>;
}

const route = (provider: string, id: string, input: number, output: number, extra: Record<string, unknown> = {}) => ({
  provider,
  provider_model_id: id,
  input_price: input,
  output_price: output,
  context_window: 128000,
  max_output_tokens: 4096,
  ...extra,
});

export function gatewayConfig(mock: MockUpstream, extra: Record<string, unknown> = {}) {
  const p = (adapter: string, name: string, more: Record<string, unknown> = {}) => ({
    adapter,
    base_url: mock.baseUrl(adapter as "openai", name),
    api_key: `sk-${name}-platform-0123456789`,
    display_name: name,
    data_policy: "no_training",
    byok: true,
    timeout_ms: 2000,
    first_byte_timeout_ms: 1500,
    idle_timeout_ms: 1000,
    ...more,
  });
  return {
    catalog: "replace",
    providers: {
      alpha: p("openai", "alpha"),
      beta: p("anthropic", "beta", { data_policy: "zdr" }),
      gamma: p("gemini", "gamma", { data_policy: "none" }),
      nokey: { adapter: "openai", base_url: mock.baseUrl("openai", "nokey") },
      // Accepts the Responses API natively, like OpenAI itself.
      delta: p("openai", "delta", { supports_responses: true }),
    },
    models: {
      "acme/chat": {
        display_name: "Chat",
        aliases: ["chat"],
        capabilities: { supports_tools: true, supports_streaming: true, supports_vision: true },
        routes: [route("alpha", "alpha-chat", 1, 3), route("beta", "beta-chat", 2, 4), route("gamma", "gamma-chat", 0.5, 1.5)],
      },
      "acme/openai-only": { routes: [route("alpha", "alpha-solo", 1, 2)] },
      "acme/anthropic-only": { routes: [route("beta", "claude-solo", 3, 15, { cache_read_price: 0.3 })] },
      "acme/gemini-only": { routes: [route("gamma", "gemini-solo", 0.3, 2.5)] },
      "acme/unroutable": { routes: [route("nokey", "x", 1, 1)] },
      // Offered only through OpenAI's Responses API (like gpt-5.5-pro): served by the openai-responses adapter.
      "acme/dual": { routes: [route("delta", "delta-dual", 1, 2, { endpoints: ["chat_completions", "responses"] })] },
      "acme/responses-only": { routes: [route("alpha", "alpha-pro", 10, 40, { endpoints: ["responses"] })] },
    },
    ...extra,
  };
}

export async function startGateway(opts: StartOptions & { config?: Record<string, unknown> } = {}): Promise<TestGateway> {
  const mock = await startMockUpstream();
  const s = await startServer({ ...opts, configFile: gatewayConfig(mock, opts.config) });
  return {
    s,
    mock,
    async stop() {
      await s.stop();
      await mock.stop();
    },
  };
}
