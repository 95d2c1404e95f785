// Issue 55: the real Claude Code CLI (Messages dialect) through the gateway to a route that speaks only
// OpenAI chat completions. The upstream calls the agent's Read tool; Claude Code must run it, send its
// result back (a chat `tool` message answering the call id the upstream minted), and show the answer.
import { describe, expect, test } from "bun:test";
import { agentsMissing } from "../../support/agent-clis";
import {
  chatToolCallEvents,
  CLAUDE_OK,
  claudeOutcome,
  claudeResult,
  FINAL_ANSWER,
  runClaudeOnNotes,
  scriptToolTurns,
  upstreamCalls,
  useCrossDialectGateway,
  type CrossDialectGateway,
  type CrossProvider,
  writeNotes,
} from "../../support/cross-dialect-agents";
import type { RecordedRequest } from "../../support/mock-upstream";

const missing = agentsMissing();
if (missing) console.warn(`Claude Code cross-dialect agent tests skipped: ${missing}`);

const UPSTREAM = "gpt-cross-chat";
const CALL_ID = "call_crossReadNotes0001";

type ChatMessage = {
  role: string;
  content: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string } }[];
  reasoning_content?: string;
};
interface ChatBody {
  model: string;
  stream?: boolean;
  messages: ChatMessage[];
  tools?: { type: string; function: { name: string } }[];
}
type ClientBlock = { type: string; thinking?: string; signature?: string };

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
const clientTurns = (b: unknown) => (b as { messages: { role: string; content: string | ClientBlock[] }[] }).messages;

/** Claude Code asked about a file only a Read that really ran can quote, on `provider`; what it and the upstream saw. */
async function readThroughChat(g: CrossDialectGateway, provider: CrossProvider, model: string, reasoning?: string) {
  const home = g.home(`claude-code-${provider}`);
  const notes = writeNotes(home);
  scriptToolTurns(
    g.mock,
    provider,
    chatToolCallEvents({ id: CALL_ID, name: "Read", args: { file_path: notes.path }, model: UPSTREAM, reasoning }),
  );
  const run = await runClaudeOnNotes(g, home, model);
  const sent = g.proxy.requests.filter((r) => r.path === "/v1/messages").map((r) => r.body);
  return { run, secret: notes.secret, sent, calls: upstreamCalls(g.mock, provider).map(body) };
}

describe.skipIf(missing !== null)("Claude Code through an OpenAI chat-completions route", () => {
  const g = useCrossDialectGateway({ aliases: SHAPES.map((x) => x.model), provider: "alpha", upstreamId: UPSTREAM });

  test.each(SHAPES)(
    "$model: the upstream's tool call runs Claude Code's Read tool, and its result goes back as a chat tool message for that call id",
    async (shape) => {
      const { run, secret, sent, calls } = await readThroughChat(g, "alpha", shape.model);
      expect(claudeOutcome(run)).toEqual(CLAUDE_OK);
      expect(claudeResult(run)).toBe(FINAL_ANSWER);
      // Claude Code itself answered the call id it was given (the Messages side of the translation).
      expect(sent).toHaveLength(2);
      expect(JSON.stringify(sent[1])).toContain(`"tool_use_id":"${CALL_ID}"`);

      expect(calls).toHaveLength(2);
      const [first, second] = calls;
      // What Claude Code's request became on the chat wire: streamed, the upstream's model id, its tools as functions.
      expect(first).toMatchObject({ model: UPSTREAM, stream: true });
      expect(first!.tools?.map((t) => t.function.name)).toEqual(expect.arrayContaining(["Bash", "Read", "Write", "Edit"]));
      expect(first!.messages.some((m) => m.role === "tool")).toBe(false);
      const systemTurns = clientTurns(sent[0])
        .filter((m) => m.role === "system")
        .map((m) => textOf(m.content));
      expect(systemTurns.length > 0).toBe(shape.systemTurns);
      for (const text of systemTurns) expect(first!.messages.find((m) => textOf(m.content).includes(text))?.role).toBe("system");

      const assistant = second!.messages.find((m) => m.tool_calls !== undefined);
      expect(assistant?.tool_calls).toEqual([
        expect.objectContaining({ id: CALL_ID, function: expect.objectContaining({ name: "Read" }) }),
      ]);
      const toolMessages = second!.messages.filter((m) => m.role === "tool");
      expect(toolMessages).toHaveLength(1);
      expect(toolMessages[0]!.tool_call_id).toBe(CALL_ID);
      expect(JSON.stringify(toolMessages[0]!.content)).toContain(secret);
      // Chat wants the tool result right after the assistant's call.
      expect(second!.messages[second!.messages.indexOf(assistant!) + 1]).toBe(toolMessages[0]);
    },
    60_000,
  );
});

describe.skipIf(missing !== null)("Claude Code through DeepSeek (chat completions that want reasoning_content back)", () => {
  const g = useCrossDialectGateway({ aliases: ["claude-sonnet-4-5"], provider: "deepseek", upstreamId: UPSTREAM });
  const REASONING = "The user asks about notes.txt; I should read it before answering.";

  // Depends on the chat adapters' reasoning (issue 55 convention 1: reasoning_content is an entry) and
  // DeepSeek's row taking it back: in thinking mode with tools DeepSeek wants the call's reasoning again.
  test("the reasoning_content of the turn that called Read reaches Claude Code as thinking and goes back with the call", async () => {
    const { run, sent, calls } = await readThroughChat(g, "deepseek", "claude-sonnet-4-5", REASONING);
    expect(claudeOutcome(run)).toEqual(CLAUDE_OK);
    expect(claudeResult(run)).toBe(FINAL_ANSWER);
    const back = clientTurns(sent[1]).find((m) => m.role === "assistant")!;
    expect((back.content as ClientBlock[]).map((b) => b.type)).toEqual(["thinking", "tool_use"]);
    expect((back.content as ClientBlock[])[0]!.thinking).toBe(REASONING);

    const assistant = calls[1]!.messages.find((m) => m.tool_calls !== undefined)!;
    expect(assistant.reasoning_content).toBe(REASONING);
    expect(assistant.tool_calls?.[0]?.id).toBe(CALL_ID);
  }, 60_000);
});
