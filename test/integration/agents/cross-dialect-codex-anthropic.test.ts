// Issue 55: the real Codex CLI (Responses dialect, wire_api "responses") through the gateway to an
// Anthropic route. The upstream thinks (a signed thinking block) and calls Codex's exec_command tool;
// Codex must run the command and send its output back, which reaches Anthropic as a tool_result for
// that tool_use id, after the same thinking block: Anthropic refuses a tool-use turn with thinking on
// whose thinking block is missing or altered.
import { describe, expect, test } from "bun:test";
import { agentsMissing, codexEvents, CODEX_MODEL, runCodex, type AgentRun } from "../../support/agent-clis";
import {
  anthropicToolUseEvents,
  carriesToolResult,
  CODEX_OK,
  codexOutcome,
  FINAL_ANSWER,
  NOTES_PROMPT,
  scriptToolTurns,
  type RecordingProxy,
  upstreamCalls,
  useCrossDialectGateway,
  writeNotes,
} from "../../support/cross-dialect-agents";
import type { RecordedRequest } from "../../support/mock-upstream";

const missing = agentsMissing();
if (missing) console.warn(`Codex cross-dialect agent tests skipped: ${missing}`);

const UPSTREAM = "claude-cross-opus";
const TOOL_USE_ID = "toolu_01CrossCatNotes000000";
const THINKING = "The user asks about notes.txt; I should print it before answering.";
const SIGNATURE = "EpcCCkYIBxgCKkCrossDialectThinkingSignature0123456789AbCdEfGhIjKlMnOpQrStUvWxYz+/EgwQ3y4Z5a6b7c8d9e0fGgxTail==";

type Block = { type: string; [k: string]: unknown };
interface MessagesBody {
  model: string;
  stream?: boolean;
  system?: unknown;
  messages: { role: string; content: string | Block[] }[];
  tools?: { name: string; type?: string }[];
  thinking?: { type: string; budget_tokens?: number };
}

type Item = { type: string; call_id?: string; encrypted_content?: string; output?: unknown };

const body = (r: RecordedRequest) => r.body as MessagesBody;
/** The input items of the request in which Codex sent a command's output back. */
function clientFollowUp(proxy: RecordingProxy): Item[] {
  const sent = proxy.requests.filter((r) => r.path === "/v1/responses").map((r) => (r.body as { input: Item[] }).input);
  return sent.find((input) => input.some((i) => i.type === "function_call_output")) ?? [];
}
const blocks = (content: string | Block[]): Block[] => (typeof content === "string" ? [{ type: "text", text: content }] : content);
const answer = (run: AgentRun) => codexEvents(run.stdout).findLast((e) => e.item?.type === "agent_message")?.item?.text;

describe.skipIf(missing !== null)("Codex through an Anthropic route", () => {
  const g = useCrossDialectGateway({ aliases: [CODEX_MODEL], provider: "beta", upstreamId: UPSTREAM });

  /** Codex asked about a file only a command that really ran can quote; the upstream requests of the run. */
  async function catThroughAnthropic(prefix: string) {
    const home = g.home(prefix);
    const { secret } = writeNotes(home);
    const turn1 = anthropicToolUseEvents({
      id: TOOL_USE_ID,
      name: "exec_command",
      args: { cmd: "cat notes.txt" },
      model: UPSTREAM,
      thinking: THINKING,
      signature: SIGNATURE,
    });
    scriptToolTurns(g.mock, "beta", turn1);
    const run = await runCodex(home, {
      baseUrl: `${g.proxy.url}/v1`,
      apiKey: g.key,
      model: CODEX_MODEL,
      prompt: NOTES_PROMPT,
      args: ["--ephemeral"],
    });
    return { run, secret, calls: upstreamCalls(g.mock, "beta") };
  }

  test("the upstream's tool_use runs Codex's exec_command, and the command's output goes back as the tool_result for that id", async () => {
    const { run, secret, calls } = await catThroughAnthropic("codex-anthropic");
    expect(codexOutcome(run)).toEqual(CODEX_OK);
    expect(answer(run)).toBe(FINAL_ANSWER);
    expect(calls).toHaveLength(2);
    // Codex answered the call id it was given (the tool_use id, through the Responses dialect).
    const client = clientFollowUp(g.proxy);
    expect(client.find((i) => i.type === "function_call")?.call_id).toBe(TOOL_USE_ID);
    expect(client.find((i) => i.type === "function_call_output")?.call_id).toBe(TOOL_USE_ID);

    const [first, second] = calls.map(body);
    expect(first).toMatchObject({ model: UPSTREAM, stream: true });
    expect(first!.tools?.map((t) => t.name)).toContain("exec_command");

    const turns = second!.messages;
    const call = turns.findIndex((m) => m.role === "assistant" && blocks(m.content).some((b) => b.type === "tool_use"));
    expect(call).toBeGreaterThan(-1);
    const use = blocks(turns[call]!.content).find((b) => b.type === "tool_use")!;
    expect(use).toMatchObject({ id: TOOL_USE_ID, name: "exec_command", input: { cmd: "cat notes.txt" } });
    // Anthropic wants the result in the next user turn, first.
    const next = turns[call + 1]!;
    expect(next.role).toBe("user");
    const toolResult = blocks(next.content)[0]!;
    expect(toolResult).toMatchObject({ type: "tool_result", tool_use_id: TOOL_USE_ID });
    expect(JSON.stringify(toolResult.content)).toContain(secret);
  }, 60_000);

  // Depends on the Anthropic adapter reading thinking into reasoning_details and the Responses dialect
  // carrying them through Codex as a reasoning item's encrypted_content (issue 55 conventions 1 and 5).
  test("the signed thinking block comes back unchanged before the tool_use on the turn after the call", async () => {
    const { run, calls } = await catThroughAnthropic("codex-anthropic-thinking");
    expect(codexOutcome(run)).toEqual(CODEX_OK);
    expect(answer(run)).toBe(FINAL_ANSWER);
    // Codex got the thinking as a reasoning item (encrypted_content: the carried block) and sent it back before its call.
    const client = clientFollowUp(g.proxy);
    const reasoning = client.findIndex((i) => i.type === "reasoning");
    expect(client[reasoning]?.encrypted_content).toEqual(expect.stringMatching(/.+/));
    expect(reasoning).toBeLessThan(client.findIndex((i) => i.type === "function_call"));

    const second = body(calls.find(carriesToolResult)!);
    // With its thinking block back, the turn keeps thinking on (the adapter turns it off for a tool-use turn without one).
    expect(body(calls[0]!).thinking?.type).toBe("enabled");
    expect(second.thinking).toEqual(body(calls[0]!).thinking!);
    const assistant = second.messages.find((m) => m.role === "assistant" && blocks(m.content).some((b) => b.type === "tool_use"))!;
    const content = blocks(assistant.content);
    expect(content[0]).toEqual({ type: "thinking", thinking: THINKING, signature: SIGNATURE });
    expect(content.findIndex((b) => b.type === "tool_use")).toBeGreaterThan(0);
  }, 60_000);
});
