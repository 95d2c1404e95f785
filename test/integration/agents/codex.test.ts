// Issue 53: the real Codex CLI from npm, configured with a model provider whose base_url is the
// gateway's /v1 (wire_api "responses"), against a route that speaks OpenAI's Responses API. Each test
// runs `codex exec` twice from the same HOME and folder: once at the mock upstream directly, which
// records what Codex really sends, and once through the gateway; the route's upstream must receive the
// same request (a native pass-through), apart from the model id and the per-run ids Codex mints. On a
// platform-key call the provider-run tools Codex offers (web_search, billed per call) are the one
// exception (issue 52 item 5: the catalog prices the standard call only); a BYOK call keeps them.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  agentGatewayConfig,
  agentHome,
  agentsMissing,
  codexEvents,
  CODEX_MODEL,
  CODEX_UPSTREAM_MODEL,
  comparableBody,
  createAgentKey,
  runCodex,
  type AgentHome,
  type AgentRun,
} from "../../support/agent-clis";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "../../support/mock-upstream";
import { startServer, type InProcessServer } from "../../support/server";

const missing = agentsMissing();
if (missing) console.warn(`Codex agent tests skipped: ${missing}`);

const CLIENT_KEY = "sk-proj-direct-run-0123456789";
const PLATFORM_KEY = "sk-delta-platform-0123456789";
const ENCRYPTED = "gAAAAABmockEncryptedReasoningContent0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ==";

type Item = { type: string; role?: string; encrypted_content?: string; call_id?: string; output?: unknown; [k: string]: unknown };
interface Body {
  model: string;
  input: Item[];
  tools: { type: string; name?: string; execution?: string }[];
  include?: string[];
  prompt_cache_key?: string;
  reasoning?: unknown;
  client_metadata?: Record<string, string>;
  store?: boolean;
  stream?: boolean;
}

const body = (r: RecordedRequest) => r.body as Body;
/** A tool the client runs (a function, a custom tool, or one declared `execution: "client"`, like tool_search) stays on a platform-key call. */
const clientRun = (t: Body["tools"][number]) => t.type === "function" || t.type === "custom" || t.execution === "client";
/** The request a platform-key call should forward: Codex's, less its provider-run tools. */
const platformView = (b: Body) => ({ ...b, tools: b.tools.filter(clientRun) });
const sentBy = (mock: MockUpstream, provider: string) => mock.requests.filter((r) => r.provider === provider && r.route === "responses");
const answer = (run: AgentRun) => codexEvents(run.stdout).findLast((e) => e.item?.type === "agent_message")?.item?.text;
const ok = (run: AgentRun) => {
  expect({ code: run.code, timedOut: run.timedOut }).toEqual({ code: 0, timedOut: false });
  expect(codexEvents(run.stdout).some((e) => e.type === "turn.completed")).toBe(true);
};

describe.skipIf(missing !== null)("Codex through a Responses API route", () => {
  let mock: MockUpstream;
  let s: InProcessServer;
  let key: string;
  let home: AgentHome;
  beforeAll(async () => {
    mock = await startMockUpstream();
    s = await startServer({ configFile: agentGatewayConfig(mock) });
    key = await createAgentKey(s, "codex");
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

  /** `codex exec` at the mock directly (as `direct`), then through the gateway; each run's upstream requests. */
  async function bothWays(prompt: string, direct: string) {
    const common = { model: CODEX_MODEL, prompt, args: ["--ephemeral"] };
    const first = await runCodex(home, { ...common, baseUrl: mock.baseUrl("openai", direct), apiKey: CLIENT_KEY });
    ok(first);
    const before = sentBy(mock, "delta").length;
    const second = await runCodex(home, { ...common, baseUrl: `${s.url}/v1`, apiKey: key });
    ok(second);
    return { direct: first, via: second, recorded: sentBy(mock, direct), forwarded: sentBy(mock, "delta").slice(before) };
  }

  test("Codex's Responses request reaches the route's upstream as it sent it (provider-run tools aside on a platform key): include, prompt_cache_key, reasoning, input items, client-run tools, client_metadata", async () => {
    home = agentHome("codex");
    const { via, recorded, forwarded } = await bothWays("say hi", "direct");
    expect(answer(via)).toBe("Hello from the mock upstream.");
    expect(recorded).toHaveLength(1);
    expect(forwarded).toHaveLength(1);
    // What Codex sends, so a CLI release that stops sending it is noticed rather than compared away.
    const sent = body(recorded[0]!);
    expect(sent).toMatchObject({ model: CODEX_MODEL, stream: true, store: false, include: ["reasoning.encrypted_content"] });
    expect(sent.reasoning).toBeDefined();
    expect(sent.prompt_cache_key).toBe(sent.client_metadata?.thread_id);
    expect(sent.input.some((i) => i.role === "developer")).toBe(true);
    expect(sent.tools.map((t) => t.type)).toEqual(expect.arrayContaining(["function", "custom", "tool_search", "web_search"]));

    const out = body(forwarded[0]!);
    expect(out.model).toBe(CODEX_UPSTREAM_MODEL);
    // The tool list first, so that a dropped tool is named rather than buried in the body's diff.
    expect(out.tools.map((t) => t.name ?? t.type)).toEqual(platformView(sent).tools.map((t) => t.name ?? t.type));
    expect(comparableBody(out)).toBe(comparableBody(platformView(sent)));
    // The normalised comparison hides which id went where: the cache key still names this run's thread.
    expect(out.prompt_cache_key).toBe(out.client_metadata?.thread_id);
    expect(forwarded[0]!.headers.authorization).toBe(`Bearer ${PLATFORM_KEY}`);
    expect(JSON.stringify(forwarded[0]!.headers)).not.toContain(key);
  }, 90_000);

  test("a reasoning item's encrypted_content and the tool output go back upstream unchanged on the turn after a function call", async () => {
    home = agentHome("codex-tools");
    writeFileSync(join(home.cwd, "notes.txt"), "The launch code is 4417.\n");
    const hasOutput = (r: RecordedRequest) => r.route === "responses" && body(r).input.some((i) => i.type === "function_call_output");
    // The first turn reasons and runs `cat notes.txt`; the next one answers.
    mock.setScript((r) => r.route === "responses" && !hasOutput(r), { kind: "fixture", file: "agents/codex-reasoning-exec.chunks.txt" });
    mock.setScript(hasOutput, { kind: "reply", text: "The notes say the launch code is 4417." });

    const { direct, via, recorded, forwarded } = await bothWays("What do the notes in notes.txt say?", "direct-tools");
    expect(answer(direct)).toBe("The notes say the launch code is 4417.");
    expect(answer(via)).toBe("The notes say the launch code is 4417.");
    expect(recorded.length).toBeGreaterThanOrEqual(2);

    const followUp = body(recorded.find(hasOutput)!);
    // The follow-up Codex sends carries the reasoning item it was given and the command's output.
    expect(followUp.input).toContainEqual(expect.objectContaining({ type: "reasoning", encrypted_content: ENCRYPTED }));
    expect(followUp.input).toContainEqual(expect.objectContaining({ type: "function_call", call_id: "call_agentexec0001" }));
    expect(followUp.input.find((i) => i.type === "function_call_output")).toMatchObject({ call_id: "call_agentexec0001" });

    expect(forwarded.map((r) => comparableBody(r.body))).toEqual(recorded.map((r) => comparableBody(platformView(body(r)))));
  }, 90_000);

  // Last: the BYOK key becomes the workspace's default for delta, so the calls after it are BYOK calls.
  test("with a BYOK key for the route's provider, Codex's whole request passes through, provider-run tools included", async () => {
    home = agentHome("codex-byok");
    const byokKey = "sk-proj-byok-delta-0123456789";
    const created = await s.fetch(`/v1/workspaces/${s.workspaceId}/byok-keys`, {
      method: "POST",
      body: JSON.stringify({ provider: "delta", api_key: byokKey }),
    });
    expect(created.status).toBe(201);
    const { via, recorded, forwarded } = await bothWays("say hi", "direct-byok");
    expect(answer(via)).toBe("Hello from the mock upstream.");
    expect(forwarded).toHaveLength(1);
    expect(comparableBody(forwarded[0]!.body)).toBe(comparableBody(recorded[0]!.body));
    expect(forwarded[0]!.headers.authorization).toBe(`Bearer ${byokKey}`);
  }, 90_000);
});
