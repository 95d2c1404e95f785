// Issue 55: the real Claude Code CLI (Messages dialect) through the gateway to a route that speaks only
// OpenAI chat completions. The upstream calls the agent's Read tool; Claude Code must run it, send its
// result back (a chat `tool` message answering the call id the upstream minted), and show the answer.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentHome, agentsMissing, createAgentKey, runClaude, type AgentHome } from "../../support/agent-clis";
import {
  carriesToolResult,
  CLAUDE_OK,
  claudeOutcome,
  claudeResult,
  chatToolCallEvents,
  crossDialectConfig,
  startRecordingProxy,
  upstreamCalls,
  type RecordingProxy,
} from "../../support/cross-dialect-agents";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "../../support/mock-upstream";
import { startServer, type InProcessServer } from "../../support/server";

const missing = agentsMissing();
if (missing) console.warn(`Claude Code cross-dialect agent tests skipped: ${missing}`);

const UPSTREAM = "gpt-cross-chat";
const CALL_ID = "call_crossReadNotes0001";
const ANSWER = "The notes hold the launch code.";

interface ChatBody {
  model: string;
  stream?: boolean;
  messages: { role: string; content: unknown; tool_call_id?: string; tool_calls?: { id: string; function: { name: string } }[] }[];
  tools?: { type: string; function: { name: string } }[];
}

/**
 * Claude Code shapes its request by model: claude-sonnet-4-5 gets budgeted thinking; claude-opus-5-5
 * adaptive thinking, output_config.effort and role "system" turns inside `messages` (each must stay a
 * system message where Claude Code put it, not become the user's words).
 */
const SHAPES = [
  { model: "claude-sonnet-4-5", systemTurns: false },
  { model: "claude-opus-5-5", systemTurns: true },
];

const body = (r: RecordedRequest) => r.body as ChatBody;
const textOf = (content: unknown): string =>
  typeof content === "string" ? content : ((content ?? []) as { text?: string }[]).map((b) => b.text ?? "").join("");

describe.skipIf(missing !== null)("Claude Code through an OpenAI chat-completions route", () => {
  let mock: MockUpstream;
  let s: InProcessServer;
  let key: string;
  let home: AgentHome;
  let proxy: RecordingProxy;
  beforeAll(async () => {
    mock = await startMockUpstream();
    s = await startServer({
      configFile: crossDialectConfig(mock, { aliases: SHAPES.map((x) => x.model), provider: "alpha", upstreamId: UPSTREAM }),
    });
    key = await createAgentKey(s, "claude-code-chat");
    proxy = startRecordingProxy(s.url);
  });
  afterEach(() => {
    mock.reset();
    proxy.requests.length = 0;
    home?.cleanup();
  });
  afterAll(async () => {
    await proxy?.stop();
    await s?.stop();
    await mock?.stop();
  });

  test.each(SHAPES)(
    "$model: the upstream's tool call runs Claude Code's Read tool, and its result goes back as a chat tool message for that call id",
    async (shape) => {
      home = agentHome("claude-code-chat");
      // A secret made here, so only a Read that really ran can put it in the tool message.
      const secret = `launch code ${crypto.randomUUID()}`;
      const notes = join(home.cwd, "notes.txt");
      writeFileSync(notes, `${secret}\n`);
      const turn1 = chatToolCallEvents({ id: CALL_ID, name: "Read", args: { file_path: notes }, model: UPSTREAM });
      mock.setScript((r) => r.provider === "alpha" && r.route === "chat" && !carriesToolResult(r), { kind: "sse", chunks: turn1 });
      mock.setScript((r) => r.provider === "alpha" && r.route === "chat" && carriesToolResult(r), { kind: "reply", text: ANSWER });

      const args = ["--session-id", crypto.randomUUID(), "--no-session-persistence", "--max-turns", "3", "--allowedTools", "Read"];
      const run = await runClaude(home, {
        baseUrl: proxy.url,
        apiKey: key,
        model: shape.model,
        prompt: "What do the notes in notes.txt say?",
        args,
      });
      expect(claudeOutcome(run)).toEqual(CLAUDE_OK);
      expect(claudeResult(run)).toBe(ANSWER);
      // Claude Code itself answered the call id it was given (the Messages side of the translation).
      const sent = proxy.requests.filter((r) => r.path === "/v1/messages");
      expect(sent).toHaveLength(2);
      expect(JSON.stringify(sent[1]!.body)).toContain(`"tool_use_id":"${CALL_ID}"`);

      const calls = upstreamCalls(mock, "alpha");
      expect(calls).toHaveLength(2);
      const [first, second] = calls.map(body);
      // What Claude Code's request became on the chat wire: streamed, the upstream's model id, its tools as functions.
      expect(first).toMatchObject({ model: UPSTREAM, stream: true });
      expect(first!.tools?.map((t) => t.function.name)).toEqual(expect.arrayContaining(["Bash", "Read", "Write", "Edit"]));
      expect(first!.messages.some((m) => m.role === "tool")).toBe(false);
      const clientTurns = (sent[0]!.body as { messages: { role: string; content: unknown }[] }).messages;
      const systemTurns = clientTurns.filter((m) => m.role === "system").map((m) => textOf(m.content));
      expect(systemTurns.length > 0).toBe(shape.systemTurns);
      for (const text of systemTurns) {
        const carried = first!.messages.find((m) => textOf(m.content).includes(text));
        expect(carried?.role).toBe("system");
      }

      const assistant = second!.messages.find((m) => m.tool_calls !== undefined);
      expect(assistant?.tool_calls).toEqual([
        expect.objectContaining({ id: CALL_ID, function: expect.objectContaining({ name: "Read" }) }),
      ]);
      const toolMessages = second!.messages.filter((m) => m.role === "tool");
      expect(toolMessages).toHaveLength(1);
      expect(toolMessages[0]!.tool_call_id).toBe(CALL_ID);
      expect(JSON.stringify(toolMessages[0]!.content)).toContain(secret);
      // Chat wants the tool result right after the assistant's call.
      const at = second!.messages.indexOf(assistant!);
      expect(second!.messages[at + 1]).toBe(toolMessages[0]);
    },
    60_000,
  );
});
