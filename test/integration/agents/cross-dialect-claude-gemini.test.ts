// Issue 55: the real Claude Code CLI (Messages dialect) through the gateway to a Gemini route
// (streamGenerateContent?alt=sse). The upstream thinks (a thought part with its thoughtSignature) and
// calls the agent's Read tool (a functionCall with its own thoughtSignature); Claude Code must run it and
// send the result back, which reaches Gemini as a functionResponse, with both signatures where Gemini
// put them: Gemini refuses a function call turn whose signature is missing.
import { describe, expect, test } from "bun:test";
import { agentsMissing } from "../../support/agent-clis";
import {
  carriesToolResult,
  CLAUDE_OK,
  claudeOutcome,
  claudeResult,
  FINAL_ANSWER,
  type RecordingProxy,
  geminiToolCallEvents,
  runClaudeOnNotes,
  scriptToolTurns,
  upstreamCalls,
  useCrossDialectGateway,
  writeNotes,
} from "../../support/cross-dialect-agents";
import type { RecordedRequest } from "../../support/mock-upstream";

const missing = agentsMissing();
if (missing) console.warn(`Claude Code cross-dialect agent tests skipped: ${missing}`);

const MODEL = "claude-sonnet-4-5";
const UPSTREAM = "gemini-cross-pro";
const THOUGHT = "The user asks about notes.txt; I should read it before answering.";
const THOUGHT_SIGNATURE = "CiQBcsjafThoughtSignatureOfTheThoughtPart0123456789abcdefABCDEF==";
const CALL_SIGNATURE = "CikBcsjafFunctionCallSignature9876543210zyxwvuZYXWVUtsrqp+/0123==";

type Part = {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { name: string; args: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; response: Record<string, unknown>; id?: string };
};
interface GeminiBody {
  contents: { role: string; parts: Part[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
  systemInstruction?: unknown;
  generationConfig?: Record<string, unknown>;
}

type ClientBlock = { type: string; id?: string; tool_use_id?: string; signature?: string };
interface ClientBody {
  messages: { role: string; content: string | ClientBlock[] }[];
}

const body = (r: RecordedRequest) => r.body as GeminiBody;
/** What Claude Code sent on the turn that carries the tool's result: its own assistant turn and the result. */
function clientFollowUp(proxy: RecordingProxy) {
  const sent = proxy.requests.filter((r) => r.path === "/v1/messages").map((r) => r.body as ClientBody);
  const followUp = sent.find((b) => JSON.stringify(b.messages).includes('"tool_result"'));
  const blocksOf = (role: string) =>
    followUp?.messages.filter((m) => m.role === role && typeof m.content !== "string").flatMap((m) => m.content as ClientBlock[]) ?? [];
  return { count: sent.length, assistant: blocksOf("assistant"), user: blocksOf("user") };
}

describe.skipIf(missing !== null)("Claude Code through a Gemini route", () => {
  const g = useCrossDialectGateway({ aliases: [MODEL], provider: "gamma", upstreamId: UPSTREAM });

  /** Claude Code asked about a file only a Read that really ran can quote; the upstream requests of the run. */
  async function readThroughGemini(prefix: string) {
    const home = g.home(prefix);
    const notes = writeNotes(home);
    const turn1 = geminiToolCallEvents({
      name: "Read",
      args: { file_path: notes.path },
      model: UPSTREAM,
      thought: THOUGHT,
      thoughtSignature: THOUGHT_SIGNATURE,
      callSignature: CALL_SIGNATURE,
    });
    scriptToolTurns(g.mock, "gamma", turn1);
    const run = await runClaudeOnNotes(g, home, MODEL);
    return { run, secret: notes.secret, notes: notes.path, calls: upstreamCalls(g.mock, "gamma") };
  }

  test("the upstream's functionCall runs Claude Code's Read tool, and its result goes back as a functionResponse for that call", async () => {
    const { run, secret, notes, calls } = await readThroughGemini("claude-code-gemini");
    expect(claudeOutcome(run)).toEqual(CLAUDE_OK);
    expect(claudeResult(run)).toBe(FINAL_ANSWER);
    expect(calls).toHaveLength(2);
    for (const c of calls) {
      expect(c.path).toBe(`/v1beta/models/${UPSTREAM}:streamGenerateContent`);
      expect(c.search).toContain("alt=sse");
    }
    // Claude Code answered the tool_use id the gateway gave Gemini's call.
    const client = clientFollowUp(g.proxy);
    expect(client.count).toBe(2);
    const use = client.assistant.find((b) => b.type === "tool_use");
    expect(use?.id).toEqual(expect.any(String));
    expect(client.user.find((b) => b.type === "tool_result")?.tool_use_id).toBe(use!.id!);

    const [first, second] = calls.map(body);
    expect(first!.tools?.flatMap((t) => t.functionDeclarations ?? []).map((f) => f.name)).toEqual(
      expect.arrayContaining(["Bash", "Read", "Write", "Edit"]),
    );

    // The model turn with the call, then the user turn answering it, by the function's name.
    const model = second!.contents.findIndex((c) => c.role === "model" && c.parts.some((p) => p.functionCall));
    expect(model).toBeGreaterThan(-1);
    const call = second!.contents[model]!.parts.find((p) => p.functionCall)!.functionCall!;
    expect(call).toMatchObject({ name: "Read", args: { file_path: notes } });
    const answer = second!.contents[model + 1]!;
    expect(answer.role).toBe("user");
    const response = answer.parts.find((p) => p.functionResponse)?.functionResponse;
    expect(response?.name).toBe("Read");
    expect(JSON.stringify(response?.response)).toContain(secret);
  }, 60_000);

  // Depends on the Gemini adapter reading thought signatures into reasoning_details and the Messages
  // dialect carrying them through Claude Code as a thinking block (issue 55 conventions 1 and 5).
  test("the thought part's and the functionCall's thoughtSignatures come back on the same parts of the model turn", async () => {
    const { run, calls } = await readThroughGemini("claude-code-gemini-signatures");
    expect(claudeOutcome(run)).toEqual(CLAUDE_OK);
    expect(claudeResult(run)).toBe(FINAL_ANSWER);
    // Claude Code got Gemini's reasoning as one thinking block (signature: the carried entries) and sent it back before its call.
    const client = clientFollowUp(g.proxy);
    expect(client.assistant.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
    expect(client.assistant[0]!.signature).toEqual(expect.stringMatching(/.+/));

    const second = body(calls.find(carriesToolResult)!);
    const model = second.contents.find((c) => c.role === "model" && c.parts.some((p) => p.functionCall))!;
    const thought = model.parts.filter((p) => p.thought === true);
    expect(thought.map((p) => p.thoughtSignature)).toContain(THOUGHT_SIGNATURE);
    expect(model.parts.find((p) => p.functionCall)?.thoughtSignature).toBe(CALL_SIGNATURE);
    // Thoughts come before the call they led to, as Gemini sent them.
    expect(model.parts.findIndex((p) => p.thought === true)).toBeLessThan(model.parts.findIndex((p) => p.functionCall));
  }, 60_000);
});
