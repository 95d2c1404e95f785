// Sticky routing's session identity (issue 54 item 6): each source the gateway reads, their order, the
// workspace scope, and the hash of the first system and user messages in each ingress dialect.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_SESSION_ID_LENGTH, sessionKeyOf, type SessionSource } from "../../../src/inference/sticky/session-id";
import type { NativeRequest, NativeWire } from "../../../src/providers/types";

const WS = "ws-a";
const native = (wire: NativeWire, body: Record<string, unknown>): NativeRequest => ({ wire, body, headers: {} });
const chat = (body: Record<string, unknown>) => native("chat", body);
const key = (s: Partial<SessionSource>) => sessionKeyOf({ workspaceId: WS, ...s });
const CHAT = {
  messages: [
    { role: "system", content: "be brief" },
    { role: "user", content: "hi" },
  ],
};

describe("named sessions", () => {
  test("X-Session-Id names the session", () => {
    expect(key({ headers: new Headers({ "x-session-id": "s-1" }), native: chat(CHAT) })).toBe(`${WS}\u0000id:s-1`);
  });

  test("prompt_cache_key names it on chat and Responses bodies, not on Messages (Anthropic has no such field)", () => {
    expect(key({ native: chat({ ...CHAT, prompt_cache_key: "pck" }) })).toBe(`${WS}\u0000id:pck`);
    expect(key({ native: native("responses", { input: "hi", prompt_cache_key: "pck" }) })).toBe(`${WS}\u0000id:pck`);
    expect(key({ native: native("anthropic", { messages: [{ role: "user", content: "hi" }], prompt_cache_key: "pck" }) })).toStartWith(
      `${WS}\u0000h:`,
    );
  });

  test("Claude Code's X-Claude-Code-Session-Id names it", () => {
    const headers = new Headers({ "x-claude-code-session-id": "cc-1" });
    expect(key({ headers, native: native("anthropic", { messages: [{ role: "user", content: "hi" }] }) })).toBe(`${WS}\u0000id:cc-1`);
  });

  test("Codex's headers name it: session-id and thread-id (0.171), session_id and conversation_id (earlier)", () => {
    for (const name of ["session-id", "session_id", "conversation_id", "thread-id"]) {
      expect(key({ headers: new Headers({ [name]: `v-${name}` }), native: native("responses", { input: "hi" }) })).toBe(
        `${WS}\u0000id:v-${name}`,
      );
    }
  });

  test("the recorded Codex request is identified by its session (prompt_cache_key and session-id agree)", () => {
    const rec = JSON.parse(readFileSync(join(import.meta.dir, "../../fixtures/agents/codex-request.json"), "utf8"));
    const expected = `${WS}\u0000id:${rec.headers["session-id"]}`;
    expect(key({ headers: new Headers(rec.headers), native: native("responses", rec.body) })).toBe(expected);
    expect(key({ headers: new Headers({ "session-id": rec.headers["session-id"] }), native: native("responses", { input: "x" }) })).toBe(
      expected,
    );
  });

  test("precedence: X-Session-Id, then prompt_cache_key, then Claude Code's header, then Codex's", () => {
    const all = {
      "x-session-id": "explicit",
      "x-claude-code-session-id": "claude",
      "session-id": "codex-new",
      session_id: "codex-old",
      conversation_id: "codex-conv",
    };
    const body = chat({ ...CHAT, prompt_cache_key: "pck" });
    expect(key({ headers: new Headers(all), native: body })).toBe(`${WS}\u0000id:explicit`);
    const { "x-session-id": _x, ...noExplicit } = all;
    expect(key({ headers: new Headers(noExplicit), native: body })).toBe(`${WS}\u0000id:pck`);
    expect(key({ headers: new Headers(noExplicit), native: chat(CHAT) })).toBe(`${WS}\u0000id:claude`);
    const { "x-claude-code-session-id": _c, ...codex } = noExplicit;
    expect(key({ headers: new Headers(codex), native: chat(CHAT) })).toBe(`${WS}\u0000id:codex-new`);
    const { "session-id": _n, ...older } = codex;
    expect(key({ headers: new Headers(older), native: chat(CHAT) })).toBe(`${WS}\u0000id:codex-old`);
  });

  test("empty values are no ID; a very long one is hashed to a short key, the same each time", () => {
    expect(key({ headers: new Headers({ "x-session-id": "" }), native: chat({ ...CHAT, prompt_cache_key: "" }) })).toStartWith(
      `${WS}\u0000h:`,
    );
    const long = "s".repeat(MAX_SESSION_ID_LENGTH + 1);
    const k = key({ headers: new Headers({ "x-session-id": long }) })!;
    expect(k.length).toBeLessThan(40);
    expect(k).toStartWith(`${WS}\u0000id:`);
    expect(key({ headers: new Headers({ "x-session-id": long }) })).toBe(k);
    expect(key({ headers: new Headers({ "x-session-id": long.slice(1) + "t" }) })).not.toBe(k);
  });
});

describe("scope", () => {
  test("the same ID or the same prompt in two workspaces gives two keys", () => {
    const headers = new Headers({ "x-session-id": "shared-name" });
    expect(sessionKeyOf({ workspaceId: "ws-a", headers })).not.toBe(sessionKeyOf({ workspaceId: "ws-b", headers }));
    expect(sessionKeyOf({ workspaceId: "ws-a", native: chat(CHAT) })).not.toBe(sessionKeyOf({ workspaceId: "ws-b", native: chat(CHAT) }));
  });
});

describe("hash of the first system and user messages", () => {
  const turn2 = (messages: unknown[]) => [...messages, { role: "assistant", content: "hello" }, { role: "user", content: "more" }];

  test("chat: later turns keep the key; another system or first user message changes it", () => {
    const first = key({ native: chat(CHAT) })!;
    expect(first).toStartWith(`${WS}\u0000h:`);
    expect(key({ native: chat({ messages: turn2(CHAT.messages) }) })).toBe(first);
    expect(key({ native: chat({ messages: [{ role: "system", content: "be long" }, CHAT.messages[1]] }) })).not.toBe(first);
    expect(key({ native: chat({ messages: [CHAT.messages[0], { role: "user", content: "ho" }] }) })).not.toBe(first);
    // A developer message counts as the system message; text parts are read, other parts are not.
    const parts = [
      { role: "developer", content: [{ type: "text", text: "be brief" }] },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "data:..." } },
          { type: "text", text: "hi" },
        ],
      },
    ];
    expect(key({ native: chat({ messages: parts }) })).toBe(first);
    const image = (url: string) => [
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url } },
          { type: "text", text: "hi" },
        ],
      },
    ];
    expect(key({ native: chat({ messages: image("data:a") }) })).toBe(key({ native: chat({ messages: image("data:b") }) }));
  });

  test("moving text between the system and the user message changes the key", () => {
    const a = key({
      native: chat({
        messages: [
          { role: "system", content: "ab" },
          { role: "user", content: "c" },
        ],
      }),
    });
    const b = key({
      native: chat({
        messages: [
          { role: "system", content: "a" },
          { role: "user", content: "bc" },
        ],
      }),
    });
    expect(a).not.toBe(b);
  });

  test("Responses: instructions and input (a string or items); later turns keep the key", () => {
    const first = key({ native: native("responses", { instructions: "be brief", input: "hi" }) })!;
    expect(first).toStartWith(`${WS}\u0000h:`);
    const items = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "hello" }] },
      { type: "function_call_output", call_id: "c1", output: "42" },
    ];
    expect(key({ native: native("responses", { instructions: "be brief", input: items }) })).toBe(first);
    // Without instructions, a system or developer item is the system message.
    const developer = [{ role: "developer", content: "be brief" }, ...items];
    expect(key({ native: native("responses", { input: developer }) })).toBe(first);
    expect(key({ native: native("responses", { instructions: "other", input: "hi" }) })).not.toBe(first);
  });

  test("Messages: system (a string or text blocks) and the first user message; later turns keep the key", () => {
    const first = key({ native: native("anthropic", { system: "be brief", messages: [{ role: "user", content: "hi" }] }) })!;
    expect(first).toStartWith(`${WS}\u0000h:`);
    const blocks = {
      system: [{ type: "text", text: "be brief", cache_control: { type: "ephemeral" } }],
      messages: turn2([{ role: "user", content: [{ type: "text", text: "hi" }] }]),
    };
    expect(key({ native: native("anthropic", blocks) })).toBe(first);
    expect(key({ native: native("anthropic", { system: "be brief", messages: [{ role: "user", content: "no" }] }) })).not.toBe(first);
  });

  test("the same prompt in any dialect is the same conversation prefix", () => {
    const c = key({ native: chat(CHAT) });
    expect(key({ native: native("responses", { instructions: "be brief", input: "hi" }) })).toBe(c);
    expect(key({ native: native("anthropic", { system: "be brief", messages: [{ role: "user", content: "hi" }] }) })).toBe(c);
    // Without a native body, the chat form's messages.
    expect(key({ messages: CHAT.messages })).toBe(c);
  });

  test("a body with no system and no user text is no session", () => {
    expect(key({ native: chat({ messages: [] }) })).toBeNull();
    expect(key({ native: native("responses", { input: [{ type: "function_call_output", call_id: "c", output: "x" }] }) })).toBeNull();
    expect(key({ native: native("anthropic", { messages: "not a list" }) })).toBeNull();
    expect(key({})).toBeNull();
  });
});
