// Issue 53: the real Claude Code CLI from npm, pointed at the gateway (ANTHROPIC_BASE_URL), against an
// `anthropic` route. Each test runs the CLI twice from the same HOME and folder: once at the mock
// upstream directly, which records what Claude Code really sends, and once through the gateway; the
// route's upstream must receive the same request, model id aside (a native pass-through).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  agentGatewayConfig,
  agentHome,
  agentsMissing,
  CLAUDE_MODELS,
  comparableBody,
  createAgentKey,
  runClaude,
  type AgentHome,
  type AgentRun,
} from "../../support/agent-clis";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "../../support/mock-upstream";
import { fixtureSseEvents } from "../../support/mock-upstream-wire";
import { startServer, type InProcessServer } from "../../support/server";

const missing = agentsMissing();
if (missing) console.warn(`Claude Code agent tests skipped: ${missing}`);

const CLIENT_KEY = "sk-ant-api03-direct-run-0123456789";
const PLATFORM_KEY = "sk-beta-platform-0123456789";

interface Body {
  model: string;
  system: { type: string; text: string; cache_control?: unknown }[];
  messages: { role: string; content: string | { type: string; [k: string]: unknown }[] }[];
  tools: { name: string }[];
  thinking?: { type: string };
  context_management?: unknown;
  output_config?: unknown;
  stream?: boolean;
}

const body = (r: RecordedRequest) => r.body as Body;
const sentBy = (mock: MockUpstream, provider: string) => mock.requests.filter((r) => r.provider === provider && r.path === "/v1/messages");
const result = (run: AgentRun) => (JSON.parse(run.stdout) as { result: string; is_error: boolean }).result;
const ok = (run: AgentRun) =>
  expect({ code: run.code, timedOut: run.timedOut, stderr: run.stderr }).toEqual({ code: 0, timedOut: false, stderr: "" });

describe.skipIf(missing !== null)("Claude Code through an anthropic route", () => {
  let mock: MockUpstream;
  let s: InProcessServer;
  let key: string;
  let home: AgentHome;
  beforeAll(async () => {
    mock = await startMockUpstream();
    s = await startServer({ configFile: agentGatewayConfig(mock) });
    key = await createAgentKey(s, "claude-code");
  });
  // Each test's scripts and recordings are its own; each test's HOME goes with it.
  afterEach(() => {
    mock.reset();
    home?.cleanup();
  });
  afterAll(async () => {
    await s?.stop();
    await mock?.stop();
  });

  // Both runs share HOME, folder and session id, so Claude Code builds the same request twice.
  const session = (extra: string[]) => ["--session-id", crypto.randomUUID(), "--no-session-persistence", ...extra];

  // What each model's request carries, checked on the direct recording so that a CLI release that stops
  // sending something is noticed rather than compared away.
  const shapes = [
    {
      model: "claude-sonnet-4-5" as const,
      thinking: "enabled",
      effort: false,
      systemTurns: false,
      betas: ["claude-code-20250219", "context-management-2025-06-27"],
    },
    {
      model: "claude-opus-5-5" as const,
      thinking: "adaptive",
      effort: true,
      systemTurns: true,
      betas: ["claude-code-20250219", "per-turn-control-2026-07-01"],
    },
  ];

  test.each(shapes)(
    "Claude Code's request for $model reaches the route's upstream as it sent it: thinking, effort, context_management, betas, cache_control, system turns, tools",
    async (shape) => {
      home = agentHome("claude-code");
      const common = { model: shape.model, prompt: "say hi", args: session(["--max-turns", "1"]) };
      const directName = `direct-${shape.model}`;
      const direct = await runClaude(home, { ...common, baseUrl: mock.baseUrl("anthropic", directName), apiKey: CLIENT_KEY });
      ok(direct);
      const before = sentBy(mock, "beta").length;
      const via = await runClaude(home, { ...common, baseUrl: s.url, apiKey: key });
      ok(via);
      expect(result(via)).toBe("Hello from the mock upstream.");

      const [recorded] = sentBy(mock, directName);
      const forwarded = sentBy(mock, "beta").slice(before);
      expect(forwarded).toHaveLength(1);
      const sent = body(recorded!);
      expect(sent).toMatchObject({ model: shape.model, stream: true, thinking: { type: shape.thinking } });
      expect(sent.context_management).toBeDefined();
      expect(sent.output_config !== undefined).toBe(shape.effort);
      expect(sent.system.some((b) => b.cache_control !== undefined)).toBe(true);
      expect(sent.messages.some((m) => m.role === "system")).toBe(shape.systemTurns);
      expect(sent.tools.length).toBeGreaterThan(0);
      for (const beta of shape.betas) expect(recorded!.headers["anthropic-beta"]).toContain(beta);

      expect(body(forwarded[0]!).model).toBe(CLAUDE_MODELS[shape.model]);
      expect(comparableBody(forwarded[0]!.body)).toBe(comparableBody(recorded!.body));
      expect(forwarded[0]!.headers["anthropic-beta"]).toBe(recorded!.headers["anthropic-beta"]);
      expect(forwarded[0]!.headers["anthropic-version"]).toBe(recorded!.headers["anthropic-version"]);
      // The provider's credential goes upstream, never the gateway key the agent holds.
      expect(forwarded[0]!.headers["x-api-key"]).toBe(PLATFORM_KEY);
      expect(JSON.stringify(forwarded[0]!.headers)).not.toContain(key);
    },
    90_000,
  );

  test("a thinking block's signature and the tool result go back upstream unchanged on the turn after a tool call", async () => {
    home = agentHome("claude-code-tools");
    const notes = join(home.cwd, "notes.txt");
    writeFileSync(notes, "The launch code is 4417.\n");
    const turn1 = fixtureSseEvents("anthropic", "agents/claude-code-thinking-read.chunks.txt").map((e) =>
      e.replace("__NOTES_FILE__", notes),
    );
    // The first turn (no tool result yet) thinks and calls Read; the next one answers.
    const hasToolResult = (r: RecordedRequest) =>
      JSON.stringify((r.body as Body | null)?.messages ?? []).includes('"tool_result"') && r.path === "/v1/messages";
    mock.setScript((r) => r.path === "/v1/messages" && !hasToolResult(r), { kind: "sse", chunks: turn1 });
    mock.setScript(hasToolResult, { kind: "reply", text: "The notes say the launch code is 4417." });

    const args = session(["--max-turns", "3", "--allowedTools", "Read"]);
    const common = { model: "claude-opus-5-5", prompt: "What do the notes in notes.txt say?", args };
    const direct = await runClaude(home, { ...common, baseUrl: mock.baseUrl("anthropic", "direct-tools"), apiKey: CLIENT_KEY });
    ok(direct);
    expect(result(direct)).toBe("The notes say the launch code is 4417.");
    const before = sentBy(mock, "beta").length;
    const via = await runClaude(home, { ...common, baseUrl: s.url, apiKey: key });
    ok(via);
    expect(result(via)).toBe("The notes say the launch code is 4417.");

    const recorded = sentBy(mock, "direct-tools");
    const forwarded = sentBy(mock, "beta").slice(before);
    expect(recorded.length).toBeGreaterThanOrEqual(2);
    const followUp = recorded.find(hasToolResult)!;
    const turns = body(followUp).messages;
    const assistant = turns.find((m) => m.role === "assistant")!;
    // The answer Claude Code sends back carries the signed thinking block and the Read result.
    expect(assistant.content).toContainEqual(
      expect.objectContaining({ type: "thinking", signature: expect.stringMatching(/^EpcCCkYIBxgC/) }),
    );
    expect(JSON.stringify(turns)).toContain("The launch code is 4417.");

    expect(forwarded.map((r) => comparableBody(r.body))).toEqual(recorded.map((r) => comparableBody(r.body)));
    expect(forwarded.map((r) => r.headers["anthropic-beta"])).toEqual(recorded.map((r) => r.headers["anthropic-beta"]));
  }, 90_000);
});
