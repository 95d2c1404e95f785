// Which conversation a call continues, for sticky routing (issue 54 item 6): the ID a client names
// (X-Session-Id, `prompt_cache_key`, Claude Code's and Codex's session headers), else a hash of the first
// system and user messages, which every turn of a conversation repeats. The key begins with the
// workspace, so that one tenant's session never matches another's.
import type { NativeRequest } from "../../providers/types";

/** A longer client ID is hashed: the key stays small in memory and in Redis. */
export const MAX_SESSION_ID_LENGTH = 256;

/**
 * Header sources after `prompt_cache_key`, in order: Claude Code's, then Codex's (0.171 sends
 * `session-id` and `thread-id`, test/fixtures/agents/codex-request.json; earlier versions sent
 * `session_id` and `conversation_id`).
 */
const AGENT_HEADERS = ["x-claude-code-session-id", "session-id", "session_id", "conversation_id", "thread-id"];

export interface SessionSource {
  workspaceId: string;
  /** The client's request headers (undefined: none known). */
  headers?: Headers;
  /** The body in its own dialect (chat, Responses or Messages). */
  native?: NativeRequest;
  /** The chat form's messages, hashed when there is no native body. */
  messages?: unknown;
}

/** The conversation's key (`${workspace}\0id:…` or `${workspace}\0h:…`), or null when nothing identifies it. */
export function sessionKeyOf(s: SessionSource): string | null {
  const named = namedSession(s);
  if (named !== null) return `${s.workspaceId}\u0000id:${named.length > MAX_SESSION_ID_LENGTH ? hash(named) : named}`;
  const prefix = s.native ? promptPrefix(s.native) : chatPrefix(s.messages);
  return prefix === null ? null : `${s.workspaceId}\u0000h:${hash(prefix)}`;
}

function namedSession(s: SessionSource): string | null {
  const h = s.headers;
  const explicit = h?.get("x-session-id");
  if (explicit) return explicit;
  const key = s.native && s.native.wire !== "anthropic" ? s.native.body.prompt_cache_key : undefined;
  if (typeof key === "string" && key !== "") return key;
  if (!h) return null;
  for (const name of AGENT_HEADERS) {
    const v = h.get(name);
    if (v) return v;
  }
  return null;
}

// Bun.hash (wyhash, 64 bits): a few GB/s, and the prefix is hashed once per call at most.
const hash = (text: string): string => Bun.hash(text).toString(36);

type Message = { role?: unknown; content?: unknown };

/** The first system and first user text of a body in its dialect, or null when it has neither. */
function promptPrefix(n: NativeRequest): string | null {
  const b = n.body;
  if (n.wire === "chat") return chatPrefix(b.messages);
  if (n.wire === "anthropic") return joined(textOf(b.system) || firstText(b.messages, SYSTEM), firstText(b.messages, USER));
  const input = b.input;
  const system = typeof b.instructions === "string" && b.instructions !== "" ? b.instructions : firstText(input, SYSTEM);
  return joined(system, typeof input === "string" ? input : firstText(input, USER));
}

function chatPrefix(messages: unknown): string | null {
  return joined(firstText(messages, SYSTEM), firstText(messages, USER));
}

const SYSTEM = (role: unknown) => role === "system" || role === "developer";
const USER = (role: unknown) => role === "user";

function firstText(messages: unknown, role: (r: unknown) => boolean): string {
  if (!Array.isArray(messages)) return "";
  for (const m of messages as Message[]) if (m !== null && typeof m === "object" && role(m.role)) return textOf(m.content);
  return "";
}

/** A message's text: a string, or the `text` of its parts (images and other parts are left out). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    const t = (part as { text?: unknown } | null)?.text;
    if (typeof t === "string") text += t;
  }
  return text;
}

// NUL between the two, so that moving text from the system message to the user message changes the key.
const joined = (system: string, user: string): string | null => (system === "" && user === "" ? null : `${system}\u0000${user}`);
