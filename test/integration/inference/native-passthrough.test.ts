// Issue 53 part 1: a request in the route's own dialect passes through whole. What reaches the
// provider is the client's body (model replaced) with its dialect's headers; what reaches the client is
// what the provider sent, event for event, apart from routing_metadata (the gateway's own field).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startMockUpstream, type MockUpstream } from "../../support/mock-upstream";
import { gatewayConfig } from "../../support/gateway";
import { startServer, type InProcessServer } from "../../support/server";
import { eventually } from "../../support/spawn";

let mock: MockUpstream;
let s: InProcessServer;

const route = (provider: string, id: string, input: number, output: number, extra: Record<string, unknown> = {}) => ({
  provider,
  provider_model_id: id,
  input_price: input,
  output_price: output,
  context_window: 200000,
  max_output_tokens: 8192,
  ...extra,
});

beforeAll(async () => {
  mock = await startMockUpstream();
  const config = gatewayConfig(mock) as { models: Record<string, unknown> };
  // An Anthropic route first (cheapest), a chat route behind it: fallback from native to translated.
  config.models["acme/claude-first"] = { routes: [route("beta", "claude-first", 0.1, 0.2), route("alpha", "alpha-behind", 5, 10)] };
  s = await startServer({ configFile: config });
});
afterAll(async () => {
  await s.stop();
  await mock.stop();
});
beforeEach(() => mock.reset());

const sse = (events: [string, unknown][]) => events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);

/** SSE text → [event name, parsed data] per event (comments dropped). */
function parseSse(text: string): [string, Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = [];
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").filter((l) => l !== "" && !l.startsWith(":"));
    if (lines.length === 0) continue;
    const name = lines.find((l) => l.startsWith("event: "))?.slice(7) ?? "";
    const data = lines
      .filter((l) => l.startsWith("data: "))
      .map((l) => l.slice(6))
      .join("\n");
    out.push([name, JSON.parse(data) as Record<string, unknown>]);
  }
  return out;
}

const messages = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  s.fetch("/v1/messages", {
    method: "POST",
    headers: { "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify(body),
  });

const responses = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  s.fetch("/v1/responses", { method: "POST", headers, body: JSON.stringify(body) });

/** What Claude Code sends, in the shape the gateway's translation refuses (a system turn among the messages). */
const claudeCodeBody = () => ({
  model: "acme/anthropic-only",
  max_tokens: 32000,
  system: [
    { type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } },
    { type: "text", text: "Project instructions…", cache_control: { type: "ephemeral", ttl: "1h" } },
  ],
  messages: [
    { role: "user", content: [{ type: "text", text: "list the files", cache_control: { type: "ephemeral" } }] },
    { role: "system", content: "A reminder the agent adds between turns." },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "I should run ls.", signature: "EqQBCkYIBxgCKkD…sig" },
        { type: "redacted_thinking", data: "EmwKAhgBEgy3…" },
        { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.txt" }] },
  ],
  thinking: { type: "adaptive" },
  context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
  output_config: { effort: "high" },
  tools: [{ name: "Bash", description: "Run a command", input_schema: { type: "object", properties: { command: { type: "string" } } } }],
  metadata: { user_id: "user_abc" },
  a_field_from_next_year: { anything: [1, 2, 3] },
});

describe("Messages to an Anthropic route pass through whole", () => {
  test("the upstream gets the client's body as sent (model replaced): system turns, thinking blocks with signatures, cache_control, context_management, unknown fields; with the client's anthropic-version and anthropic-beta", async () => {
    const answer = {
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-solo",
      content: [
        { type: "thinking", thinking: "Listing.", signature: "sig-answer" },
        { type: "text", text: "a.txt" },
      ],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 },
      container: null,
      a_new_field: "kept",
    };
    mock.setScript({ provider: "beta" }, { kind: "error", status: 200, body: answer });
    const betas = "interleaved-thinking-2025-05-14,context-management-2025-06-27,prompt-caching-scope-2026-01-05";
    const r = await messages(claudeCodeBody(), { "anthropic-beta": betas, "anthropic-version": "2023-06-01" });
    expect(r.status).toBe(200);
    const got = (await r.json()) as Record<string, unknown>;
    const { routing_metadata, ...rest } = got;
    expect(rest).toEqual(answer);
    expect(routing_metadata).toMatchObject({ provider: "beta", provider_model_id: "claude-solo", warnings: [] });
    // Anthropic's SDKs read the request id from `request-id`.
    expect(r.headers.get("request-id")).toBe(r.headers.get("x-request-id"));
    const sent = mock.requests.at(-1)!;
    expect([sent.provider, sent.path]).toEqual(["beta", "/v1/messages"]);
    expect(sent.body).toEqual({ ...claudeCodeBody(), model: "claude-solo" });
    expect(sent.headers["anthropic-beta"]).toBe(betas);
    expect(sent.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent.headers["x-api-key"]).toBe("sk-beta-platform-0123456789");
  });

  test("a stream reaches the client event for event as the provider sent it (thinking with signature_delta, redacted thinking, server tools, an unknown event type), with routing_metadata added to message_delta only", async () => {
    const events: [string, unknown][] = [
      [
        "message_start",
        {
          type: "message_start",
          message: {
            id: "msg_02",
            type: "message",
            role: "assistant",
            model: "claude-solo",
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 20, cache_creation_input_tokens: 300, cache_read_input_tokens: 4000, output_tokens: 1 },
          },
        },
      ],
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Let me think." } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "EqQBsig" } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "redacted_thinking", data: "EmwK" } }],
      ["content_block_stop", { type: "content_block_stop", index: 1 }],
      ["ping", { type: "ping" }],
      ["a_future_event", { type: "a_future_event", payload: { x: 1 } }],
      [
        "content_block_start",
        {
          type: "content_block_start",
          index: 2,
          content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
        },
      ],
      [
        "content_block_delta",
        { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"query":"bun"}' } },
      ],
      ["content_block_stop", { type: "content_block_stop", index: 2 }],
      ["content_block_start", { type: "content_block_start", index: 3, content_block: { type: "text", text: "", citations: [] } }],
      ["content_block_delta", { type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "Hello" } }],
      [
        "content_block_delta",
        {
          type: "content_block_delta",
          index: 3,
          delta: {
            type: "citations_delta",
            citation: { type: "web_search_result_location", url: "https://bun.sh", title: "Bun", cited_text: "fast" },
          },
        },
      ],
      ["content_block_stop", { type: "content_block_stop", index: 3 }],
      [
        "message_delta",
        {
          type: "message_delta",
          delta: { stop_reason: "end_turn", stop_sequence: null },
          usage: { output_tokens: 42 },
          context_management: { applied_edits: [] },
        },
      ],
      ["message_stop", { type: "message_stop" }],
    ];
    mock.setScript({ provider: "beta" }, { kind: "sse", chunks: sse(events) });
    const r = await messages({ ...claudeCodeBody(), stream: true }, { "x-request-id": "native-stream-1" });
    expect(r.status).toBe(200);
    const got = parseSse(await r.text());
    expect(got.map(([n]) => n)).toEqual(events.map(([n]) => n));
    for (let i = 0; i < events.length; i++) {
      const [name, data] = events[i]!;
      if (name === "message_delta") {
        const { routing_metadata, ...rest } = got[i]![1];
        expect(rest).toEqual(data as Record<string, unknown>);
        expect(routing_metadata).toMatchObject({ provider: "beta", provider_model_id: "claude-solo" });
      } else expect(got[i]![1]).toEqual(data as Record<string, unknown>);
    }
    expect((mock.requests.at(-1)!.body as { stream: boolean }).stream).toBe(true);
    // Metered from the native events: message_start's input and cache counts, message_delta's output.
    const row = await recordOf("native-stream-1");
    expect(row).toMatchObject({ inputTokens: 20 + 300 + 4000, outputTokens: 42, cachedTokens: 4000, usageEstimated: false, success: true });
  });

  test("the provider's error comes back in its own shape, wording and status (a 400 the gateway did not judge)", async () => {
    const body = { type: "error", error: { type: "invalid_request_error", message: "max_tokens: Field required" }, request_id: "req_up" };
    mock.setScript({ provider: "beta" }, { kind: "error", status: 400, body });
    const { max_tokens: _, ...noMax } = claudeCodeBody();
    const r = await messages(noMax);
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual(body);
    expect(r.headers.get("x-request-id")).toBeTruthy();
  });

  test("the provider refusing the gateway's own credential is not passed on as the client's (401 → the gateway's 502)", async () => {
    mock.setScript({ provider: "beta" }, { kind: "error", status: 401, message: "invalid x-api-key" });
    const r = await messages(claudeCodeBody());
    expect(r.status).toBe(502);
    const body = (await r.json()) as { type: string; error: { type: string } };
    expect(body).toMatchObject({ type: "error", error: { type: "api_error" } });
  });

  test("a mid-stream error event is relayed as the provider wrote it", async () => {
    const error = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
    const chunks = sse([
      [
        "message_start",
        { type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], usage: { input_tokens: 3 } } },
      ],
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }],
      ["error", error],
    ]);
    mock.setScript({ provider: "beta" }, { kind: "sse", chunks });
    const r = await messages({ ...claudeCodeBody(), stream: true });
    const got = parseSse(await r.text());
    expect(got.at(-1)).toEqual(["error", error]);
    expect(got.filter(([n]) => n === "error")).toHaveLength(1);
  });

  test("before the first content a failure falls back: to a translated route when the body translates, else the provider's own answer comes back", async () => {
    const overloaded = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
    mock.setScript({ provider: "beta" }, { kind: "error", status: 529, body: overloaded });
    mock.setScript({ provider: "alpha" }, { kind: "reply", text: "from the chat route" });
    const plain = { model: "acme/claude-first", max_tokens: 50, messages: [{ role: "user", content: "hi" }] };
    const ok = await messages(plain);
    expect(ok.status).toBe(200);
    const m = (await ok.json()) as { content: { text: string }[]; routing_metadata: { provider: string; attempts: unknown[] } };
    expect(m.content[0]!.text).toBe("from the chat route");
    expect(m.routing_metadata.provider).toBe("alpha");
    expect(m.routing_metadata.attempts).toHaveLength(1);
    // A turn of a role the translation does not know: only the Anthropic route can take it, and its 529 is the answer.
    const r = await messages({ ...plain, messages: [...plain.messages, { role: "operator", content: "x" }] });
    expect(r.status).toBe(529);
    expect(await r.json()).toEqual(overloaded);
    expect(mock.requests.filter((q) => q.provider === "alpha")).toHaveLength(1);
  });

  test("the gateway still validates its own fields on a native call: gateway, model, stream", async () => {
    const bad = await messages({ ...claudeCodeBody(), gateway: { routing: { optimize: "fastest" } } });
    expect(bad.status).toBe(400);
    const stream = await messages({ ...claudeCodeBody(), stream: "yes" });
    expect(stream.status).toBe(400);
    expect(((await stream.json()) as { error: { message: string } }).error.message).toContain("stream");
    expect(mock.requests).toHaveLength(0);
  });
});

describe("Responses to a Responses-API route pass through whole", () => {
  const codexBody = () => ({
    model: "acme/dual",
    instructions: "You are Codex.",
    input: [
      { type: "message", role: "user", content: [{ type: "input_text", text: "fix the bug" }] },
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Looked." }], encrypted_content: "gAAAA…enc" },
      { type: "function_call", call_id: "call_1", name: "shell", arguments: '{"command":["ls"]}' },
      { type: "function_call_output", call_id: "call_1", output: "a.txt" },
    ],
    tools: [{ type: "function", name: "shell", parameters: { type: "object", properties: {} }, strict: false }],
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "session-123",
    client_metadata: { originator: "codex_exec" },
    text: { verbosity: "low" },
  });

  test("the upstream gets the client's body as sent (model replaced): include, reasoning items, prompt_cache_key, store, client_metadata; with OpenAI-Beta", async () => {
    const answer = {
      id: "resp_1",
      object: "response",
      created_at: 1,
      status: "completed",
      model: "delta-dual",
      output: [
        { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "gAAAA…new" },
        { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "x" } },
        {
          type: "message",
          id: "msg_1",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "done", annotations: [{ type: "url_citation", url: "https://x" }] }],
        },
      ],
      usage: {
        input_tokens: 100,
        input_tokens_details: { cached_tokens: 80 },
        output_tokens: 7,
        output_tokens_details: { reasoning_tokens: 3 },
      },
    };
    mock.setScript({ provider: "delta" }, { kind: "error", status: 200, body: answer });
    const r = await responses(codexBody(), { "openai-beta": "responses=experimental" });
    expect(r.status).toBe(200);
    const { routing_metadata, ...rest } = (await r.json()) as Record<string, unknown>;
    expect(rest).toEqual(answer);
    expect(routing_metadata).toMatchObject({ provider: "delta", provider_model_id: "delta-dual" });
    const sent = mock.requests.at(-1)!;
    expect([sent.provider, sent.path]).toEqual(["delta", "/v1/responses"]);
    expect(sent.body).toEqual({ ...codexBody(), model: "delta-dual" });
    expect(sent.headers["openai-beta"]).toBe("responses=experimental");
    expect(sent.headers.authorization).toBe("Bearer sk-delta-platform-0123456789");
  });

  test("a stream reaches the client event for event (reasoning summary deltas, an unknown event type), with routing_metadata in response.completed's response only", async () => {
    const response = (status: string, extra: Record<string, unknown> = {}) => ({
      id: "resp_s",
      object: "response",
      status,
      model: "delta-dual",
      output: [],
      ...extra,
    });
    const events: [string, unknown][] = [
      ["response.created", { type: "response.created", sequence_number: 0, response: response("in_progress") }],
      ["response.in_progress", { type: "response.in_progress", sequence_number: 1, response: response("in_progress") }],
      [
        "response.output_item.added",
        { type: "response.output_item.added", sequence_number: 2, output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [] } },
      ],
      [
        "response.reasoning_summary_text.delta",
        {
          type: "response.reasoning_summary_text.delta",
          sequence_number: 3,
          item_id: "rs_1",
          output_index: 0,
          summary_index: 0,
          delta: "Thinking",
        },
      ],
      ["response.some_future_event", { type: "response.some_future_event", sequence_number: 4, detail: true }],
      [
        "response.output_item.done",
        {
          type: "response.output_item.done",
          sequence_number: 5,
          output_index: 0,
          item: { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Thinking" }], encrypted_content: "gAAAA" },
        },
      ],
      [
        "response.output_text.delta",
        { type: "response.output_text.delta", sequence_number: 6, item_id: "msg_1", output_index: 1, content_index: 0, delta: "Hi" },
      ],
      [
        "response.completed",
        {
          type: "response.completed",
          sequence_number: 7,
          response: response("completed", { usage: { input_tokens: 50, input_tokens_details: { cached_tokens: 40 }, output_tokens: 9 } }),
        },
      ],
    ];
    mock.setScript({ provider: "delta" }, { kind: "sse", chunks: sse(events) });
    const r = await responses({ ...codexBody(), stream: true }, { "x-request-id": "native-resp-1" });
    expect(r.status).toBe(200);
    const got = parseSse(await r.text());
    expect(got.map(([n]) => n)).toEqual(events.map(([n]) => n));
    for (let i = 0; i < events.length - 1; i++) expect(got[i]![1]).toEqual(events[i]![1] as Record<string, unknown>);
    const done = got.at(-1)![1] as { response: Record<string, unknown> };
    const { routing_metadata, ...rest } = done.response;
    expect({ ...done, response: rest }).toEqual(events.at(-1)![1] as never);
    expect(routing_metadata).toMatchObject({ provider: "delta" });
    const row = await recordOf("native-resp-1");
    expect(row).toMatchObject({ inputTokens: 50, outputTokens: 9, cachedTokens: 40, success: true });
  });

  test("the provider's error comes back in its own shape, wording and status, before the stream and in it (response.failed relayed as written)", async () => {
    const body = {
      error: {
        message: "Unsupported parameter: 'reasoning.summary'.",
        type: "invalid_request_error",
        param: "reasoning.summary",
        code: "unsupported_parameter",
      },
    };
    mock.setScript({ provider: "delta" }, { kind: "error", status: 400, body });
    const r = await responses(codexBody());
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual(body);
    const failed = {
      type: "response.failed",
      sequence_number: 3,
      response: {
        id: "resp_f",
        object: "response",
        status: "failed",
        error: { code: "server_error", message: "The model crashed." },
        output: [],
      },
    };
    mock.setScript(
      { provider: "delta" },
      {
        kind: "sse",
        chunks: sse([
          [
            "response.created",
            { type: "response.created", sequence_number: 0, response: { id: "resp_f", status: "in_progress", output: [] } },
          ],
          [
            "response.output_text.delta",
            { type: "response.output_text.delta", sequence_number: 1, item_id: "m", output_index: 0, content_index: 0, delta: "Hal" },
          ],
          [
            "response.output_text.delta",
            { type: "response.output_text.delta", sequence_number: 2, item_id: "m", output_index: 0, content_index: 0, delta: "f" },
          ],
          ["response.failed", failed],
        ]),
      },
    );
    const streamed = await responses({ ...codexBody(), stream: true });
    const got = parseSse(await streamed.text());
    expect(got.map(([n]) => n)).toEqual([
      "response.created",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.failed",
    ]);
    expect(got.at(-1)![1]).toEqual(failed);
  });

  // With the gateway's store off, such a follow-up is pinned to the route that stored it: responses-store-off.test.ts.
  test("a follow-up (previous_response_id) is replayed from the gateway's copy; an unknown or unstored one gets the documented 400", async () => {
    const stored = {
      id: "resp_stored_1",
      object: "response",
      status: "completed",
      model: "delta-dual",
      output: [],
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    mock.setScript({ provider: "delta" }, { kind: "error", status: 200, body: stored });
    const first = await responses({ model: "acme/dual", input: "hi", store: true });
    expect(first.status).toBe(200);
    const next = await responses({ model: "acme/dual", input: "and then?", previous_response_id: "resp_stored_1" });
    expect(next.status).toBe(200);
    // The gateway's copy replaces the provider's: the whole conversation goes, without previous_response_id.
    const sent = mock.requests.at(-1)!.body as { previous_response_id?: string; input: unknown[] };
    expect(sent.previous_response_id).toBeUndefined();
    expect(sent.input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "and then?" }] },
    ]);
    const unknown = await responses({ model: "acme/dual", input: "x", previous_response_id: "resp_never_seen" });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { param: string } }).error.param).toBe("previous_response_id");
    // store: false leaves nothing at the provider: nothing to follow up on.
    mock.setScript({ provider: "delta" }, { kind: "error", status: 200, body: { ...stored, id: "resp_unstored" } });
    await responses({ model: "acme/dual", input: "hi", store: false });
    const lost = await responses({ model: "acme/dual", input: "x", previous_response_id: "resp_unstored" });
    expect(lost.status).toBe(400);
  });

  test("another workspace cannot follow up on a response it did not create", async () => {
    const stored = {
      id: "resp_ws_a",
      object: "response",
      status: "completed",
      model: "delta-dual",
      output: [],
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    mock.setScript({ provider: "delta" }, { kind: "error", status: 200, body: stored });
    await responses({ model: "acme/dual", input: "hi" });
    const other = await otherWorkspaceKey();
    const r = await s.fetch("/v1/responses", {
      method: "POST",
      key: other,
      body: JSON.stringify({ model: "acme/dual", input: "x", previous_response_id: "resp_ws_a" }),
    });
    expect(r.status).toBe(400);
  });
});

type Row = {
  requestId: string;
  isFinalAttempt: boolean;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  usageEstimated: boolean;
  success: boolean;
};

async function recordOf(requestId: string): Promise<Row> {
  let row: Row | undefined;
  await eventually(async () => {
    await s.deps.records.flush();
    const rows = (await s.deps.db.orm.select().from(s.deps.db.t.requestRecords)) as Row[];
    row = rows.find((x) => x.requestId === requestId && x.isFinalAttempt);
    return row !== undefined;
  }, 8_000);
  return row!;
}

/** A key of a second workspace. */
async function otherWorkspaceKey(): Promise<string> {
  const other = await s.deps.repos.workspaces.create("Other");
  const { key } = await s.deps.repos.apiKeys.create({ workspaceId: other.id, name: "k", scopes: ["usage:read"] });
  return key;
}

describe("chat completions to an OpenAI-compatible route pass through", () => {
  const chatBody = () => ({
    model: "acme/openai-only",
    messages: [{ role: "user", content: "hi" }],
    reasoning_effort: "high",
    prediction: { type: "content", content: "x" },
    a_vendor_field: { k: 1 },
  });

  test("the JSON answer comes back as the provider wrote it (reasoning_content, annotations, service_tier), with routing_metadata added; the body and OpenAI-Beta go upstream as sent", async () => {
    const answer = {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "alpha-solo",
      service_tier: "default",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "hello",
            reasoning_content: "thought",
            annotations: [{ type: "url_citation", url_citation: { url: "https://x" } }],
          },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: 3,
        completion_tokens: 2,
        total_tokens: 5,
        completion_tokens_details: { reasoning_tokens: 1, accepted_prediction_tokens: 0 },
      },
    };
    mock.setScript({ provider: "alpha" }, { kind: "error", status: 200, body: answer });
    const r = await s.fetch("/v1/chat/completions", {
      method: "POST",
      headers: { "openai-beta": "assistants=v2" },
      body: JSON.stringify(chatBody()),
    });
    expect(r.status).toBe(200);
    const { routing_metadata, ...rest } = (await r.json()) as Record<string, unknown>;
    expect(rest).toEqual(answer);
    expect(routing_metadata).toMatchObject({ provider: "alpha" });
    const sent = mock.requests.at(-1)!;
    expect(sent.body).toEqual({ ...chatBody(), model: "alpha-solo" });
    expect(sent.headers["openai-beta"]).toBe("assistants=v2");
  });

  test("a stream's delta fields the chat model has no name for (reasoning_content) reach the client as they came", async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "alpha-solo", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
    const chunks = [
      chunk({ role: "assistant", content: "" }),
      chunk({ reasoning_content: "Let me think" }),
      chunk({ content: "Hi" }),
      chunk({}, "stop"),
      `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "alpha-solo", choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } })}\n\n`,
      "data: [DONE]\n\n",
    ];
    mock.setScript({ provider: "alpha" }, { kind: "sse", chunks });
    const r = await s.fetch("/v1/chat/completions", { method: "POST", body: JSON.stringify({ ...chatBody(), stream: true }) });
    const text = await r.text();
    const deltas = text
      .split("\n\n")
      .filter((b) => b.startsWith("data: {"))
      .map((b) => JSON.parse(b.slice(6)) as { choices: { delta: Record<string, unknown> }[] })
      .flatMap((c) => c.choices.map((ch) => ch.delta));
    expect(deltas).toContainEqual({ reasoning_content: "Let me think" });
    expect(deltas).toContainEqual({ content: "Hi" });
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });
});
