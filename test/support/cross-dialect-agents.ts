// The real agents on a route that does not speak their dialect (issue 55): a gateway whose only route
// for the agent's model is on another wire, and the turns a mock upstream answers with in that wire's
// own shapes (a tool call, with the provider's reasoning state, then a final text once the result is back).
import { afterAll, afterEach, beforeAll } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentHome, codexEvents, createAgentKey, runClaude, type AgentHome, type AgentRun } from "./agent-clis";
import { gatewayConfig } from "./gateway";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "./mock-upstream";
import { frameSse } from "./mock-upstream-wire";
import { startServer, type InProcessServer } from "./server";

/**
 * The test gateway's providers by wire: alpha speaks OpenAI chat completions only, beta Anthropic
 * Messages, gamma Gemini; deepseek is the built-in DeepSeek row at the mock (chat completions that want
 * the earlier turns' reasoning back as reasoning_content).
 */
export type CrossProvider = "alpha" | "beta" | "gamma" | "deepseek";

/**
 * A gateway config whose catalog holds one model, asked for by the agents' own ids (aliases: the CLIs
 * shape requests by model name), served by one route on `provider` as `upstreamId`, with limits as
 * large as the agents' own so that nothing is clamped on the way.
 */
export function crossDialectConfig(mock: MockUpstream, o: { aliases: string[]; provider: CrossProvider; upstreamId: string }) {
  const capabilities = { supports_tools: true, supports_streaming: true, supports_reasoning: true, supports_prompt_caching: true };
  const route = {
    provider: o.provider,
    provider_model_id: o.upstreamId,
    input_price: 3,
    output_price: 15,
    context_window: 400_000,
    max_output_tokens: 128_000,
  };
  const config = gatewayConfig(mock, {
    models: { "cross/agent-model": { aliases: o.aliases, capabilities, routes: [route] } },
  }) as { providers: Record<string, Record<string, unknown>> };
  if (o.provider === "deepseek")
    config.providers.deepseek = {
      adapter: "openai",
      base_url: mock.baseUrl("openai", "deepseek"),
      api_key: "sk-deepseek-platform-0123456789",
    };
  // An agent's prompt is tens of kilobytes and its first turn is not quick to build on a loaded machine.
  Object.assign(config.providers[o.provider]!, { timeout_ms: 20_000, first_byte_timeout_ms: 15_000, idle_timeout_ms: 10_000 });
  return config;
}

export interface CrossDialectGateway {
  mock: MockUpstream;
  s: InProcessServer;
  /** A workspace key for the agent. */
  key: string;
  /** Where the agent is pointed: the gateway, through a recorder of what the agent sends. */
  proxy: RecordingProxy;
  /** A throwaway HOME for this test, removed after it. */
  home(prefix: string): AgentHome;
}

/**
 * Registers, in the calling describe block, a mock upstream, a gateway on crossDialectConfig, a key
 * and a recording proxy for the block's tests; each test's recordings, scripts and HOME are its own.
 */
export function useCrossDialectGateway(o: Parameters<typeof crossDialectConfig>[1]): CrossDialectGateway {
  let current: AgentHome | undefined;
  const g = {
    home(prefix: string) {
      current = agentHome(prefix);
      return current;
    },
  } as CrossDialectGateway;
  beforeAll(async () => {
    g.mock = await startMockUpstream();
    g.s = await startServer({ configFile: crossDialectConfig(g.mock, o) });
    g.key = await createAgentKey(g.s, `agent-on-${o.provider}`);
    g.proxy = startRecordingProxy(g.s.url);
  });
  afterEach(() => {
    g.mock.reset();
    g.proxy.requests.length = 0;
    current?.cleanup();
    current = undefined;
  });
  afterAll(async () => {
    await g.proxy?.stop();
    await g.s?.stop();
    await g.mock?.stop();
  });
  return g;
}

export const NOTES_PROMPT = "What do the notes in notes.txt say?";
export const FINAL_ANSWER = "The notes hold the launch code.";

/** notes.txt in the agent's folder, holding a secret made here: only a tool that really ran can quote it. */
export function writeNotes(home: AgentHome): { secret: string; path: string } {
  const secret = `launch code ${crypto.randomUUID()}`;
  const path = join(home.cwd, "notes.txt");
  writeFileSync(path, `${secret}\n`);
  return { secret, path };
}

/** `provider` answers the agent's first turn with `turn1` (a tool call) and the turn that carries the tool's result with FINAL_ANSWER. */
export function scriptToolTurns(mock: MockUpstream, provider: CrossProvider, turn1: string[]): void {
  const chat = (r: RecordedRequest) => r.provider === provider && r.route === "chat";
  mock.setScript((r) => chat(r) && !carriesToolResult(r), { kind: "sse", chunks: turn1 });
  mock.setScript((r) => chat(r) && carriesToolResult(r), { kind: "reply", text: FINAL_ANSWER });
}

/** `claude -p NOTES_PROMPT` through the gateway's recorder, allowed the Read tool only, for up to three turns. */
export function runClaudeOnNotes(g: CrossDialectGateway, home: AgentHome, model: string): Promise<AgentRun> {
  const args = ["--session-id", crypto.randomUUID(), "--no-session-persistence", "--max-turns", "3", "--allowedTools", "Read"];
  return runClaude(home, { baseUrl: g.proxy.url, apiKey: g.key, model, prompt: NOTES_PROMPT, args });
}

export interface ToolCallTurn {
  /** The call id the upstream mints (Gemini: the functionCall's `id`, omitted when undefined, as the Gemini API does). */
  id?: string;
  name: string;
  args: Record<string, unknown>;
  model: string;
}

/** OpenAI chat completions: DeepSeek's reasoning_content when given, one streamed tool call, finish_reason tool_calls, usage, [DONE]. */
export function chatToolCallEvents(t: ToolCallTurn & { id: string; reasoning?: string }): string[] {
  const base = { id: "chatcmpl-crossdialect0001", object: "chat.completion.chunk", created: 1750000000, model: t.model };
  const chunk = (delta: object, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const args = JSON.stringify(t.args);
  const half = Math.floor(args.length / 2);
  const payloads: (object | string)[] = [
    chunk({ role: "assistant", content: null, refusal: null }),
    ...(t.reasoning === undefined ? [] : [chunk({ reasoning_content: t.reasoning })]),
    chunk({ tool_calls: [{ index: 0, id: t.id, type: "function", function: { name: t.name, arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, half) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }),
    chunk({}, "tool_calls"),
    { ...base, choices: [], usage: { prompt_tokens: 9000, completion_tokens: 40, total_tokens: 9040 } },
    "[DONE]",
  ];
  return payloads.map((p) => frameSse("openai", typeof p === "string" ? p : JSON.stringify(p)));
}

/**
 * Gemini streamGenerateContent?alt=sse: a thought part (its summary, then its thoughtSignature on the
 * part that closes it, as Gemini 3 sends them), then a functionCall carrying its own thoughtSignature.
 */
export function geminiToolCallEvents(t: ToolCallTurn & { thought: string; thoughtSignature: string; callSignature: string }): string[] {
  const functionCall: Record<string, unknown> = { name: t.name, args: t.args };
  if (t.id !== undefined) functionCall.id = t.id;
  const event = (parts: object[], last: boolean) => {
    const candidate: Record<string, unknown> = { content: { parts, role: "model" }, index: 0 };
    if (last) candidate.finishReason = "STOP";
    const usage = last
      ? { promptTokenCount: 9000, candidatesTokenCount: 30, thoughtsTokenCount: 50, totalTokenCount: 9080 }
      : { promptTokenCount: 9000, totalTokenCount: 9000 };
    return { candidates: [candidate], usageMetadata: usage, modelVersion: t.model, responseId: "crossDialectGemini0001" };
  };
  const payloads = [
    event([{ text: t.thought, thought: true }], false),
    event([{ text: "", thought: true, thoughtSignature: t.thoughtSignature }], false),
    event([{ functionCall, thoughtSignature: t.callSignature }], true),
  ];
  return payloads.map((p) => frameSse("gemini", JSON.stringify(p)));
}

/** Anthropic Messages: a signed thinking block, then a tool_use block, stop_reason tool_use. */
export function anthropicToolUseEvents(t: ToolCallTurn & { id: string; thinking: string; signature: string }): string[] {
  const payloads = [
    {
      type: "message_start",
      message: {
        id: "msg_01CrossDialectToolUse000",
        type: "message",
        role: "assistant",
        model: t.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 9000,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 2,
          service_tier: "standard",
        },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: t.thinking } },
    { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: t.signature } },
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: t.id, name: t.name, input: {} } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: JSON.stringify(t.args) } },
    { type: "content_block_stop", index: 1 },
    { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 60 } },
    { type: "message_stop" },
  ];
  return payloads.map((p) => frameSse("anthropic", JSON.stringify(p)));
}

/** The chat requests a mock saw for `provider`, in order. */
export function upstreamCalls(mock: MockUpstream, provider: CrossProvider): RecordedRequest[] {
  return mock.requests.filter((r) => r.provider === provider && r.route === "chat");
}

/** Whether a recorded request already carries a tool's result, in its own wire's shape. */
export function carriesToolResult(r: RecordedRequest): boolean {
  const text = r.rawBody;
  if (r.format === "gemini") return text.includes('"functionResponse"');
  if (r.format === "anthropic") return text.includes('"tool_result"');
  return ((r.body as { messages?: { role: string }[] } | null)?.messages ?? []).some((m) => m.role === "tool");
}

export interface ClientRequest {
  path: string;
  body: unknown;
}

/** A pass-through between an agent and the gateway that records what the agent itself sent (the dialect's side of a translation). */
export interface RecordingProxy {
  url: string;
  requests: ClientRequest[];
  stop(): Promise<void>;
}

export function startRecordingProxy(target: string): RecordingProxy {
  const requests: ClientRequest[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const raw = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
      let body: unknown = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      requests.push({ path: url.pathname, body });
      const headers = new Headers(request.headers);
      headers.delete("host");
      headers.delete("content-length");
      // The answer streams through as the gateway sends it (fetch would otherwise decompress it under its own headers).
      headers.set("accept-encoding", "identity");
      return fetch(`${target}${url.pathname}${url.search}`, { method: request.method, headers, body: raw, signal: request.signal });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

/** How a `claude -p --output-format json` run ended, with the API error Claude Code reports in its result (an answer the CLI refused shows there). */
export function claudeOutcome(run: AgentRun) {
  let error: string | null = null;
  try {
    const out = JSON.parse(run.stdout) as { result?: string; is_error?: boolean };
    if (out.is_error) error = out.result ?? "is_error";
  } catch {
    error = `not JSON: ${run.stdout.slice(0, 500)}`;
  }
  return { code: run.code, timedOut: run.timedOut, stderr: run.stderr, error };
}
export const CLAUDE_OK = { code: 0, timedOut: false, stderr: "", error: null };

export const claudeResult = (run: AgentRun) => (JSON.parse(run.stdout) as { result: string }).result;

/** How a `codex exec --json` run ended, with the error and turn.failed events it printed (what Codex refused). */
export function codexOutcome(run: AgentRun) {
  const events = codexEvents(run.stdout);
  const errors = events.filter((e) => e.type === "error" || e.type === "turn.failed").map((e) => JSON.stringify(e));
  return { code: run.code, timedOut: run.timedOut, errors, completed: events.some((e) => e.type === "turn.completed") };
}
export const CODEX_OK = { code: 0, timedOut: false, errors: [], completed: true };
