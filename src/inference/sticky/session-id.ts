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
  if (named !== null) {
    const id = named.length > MAX_SESSION_ID_LENGTH ? (Bun.hash(named) as bigint).toString(36) : named;
    return `${s.workspaceId}\u0000id:${id}`;
  }
  const n = s.native;
  const prefix = n ? promptPrefix(n) : prefixHash(firstContent(s.messages, SYSTEM), firstContent(s.messages, USER));
  return prefix === null ? null : `${s.workspaceId}\u0000h:${prefix}`;
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

type Message = { role?: unknown; content?: unknown };

/** The hash of a body's first system and first user message in its dialect, or null when it has neither. */
function promptPrefix(n: NativeRequest): string | null {
  const b = n.body;
  if (n.wire === "chat") return prefixHash(firstContent(b.messages, SYSTEM), firstContent(b.messages, USER));
  if (n.wire === "anthropic") return prefixHash(b.system ?? firstContent(b.messages, SYSTEM), firstContent(b.messages, USER));
  const input = b.input;
  const system = typeof b.instructions === "string" && b.instructions !== "" ? b.instructions : firstContent(input, SYSTEM);
  return prefixHash(system, typeof input === "string" ? input : firstContent(input, USER));
}

const SYSTEM = (role: unknown) => role === "system" || role === "developer";
const USER = (role: unknown) => role === "user";

function firstContent(messages: unknown, role: (r: unknown) => boolean): unknown {
  if (!Array.isArray(messages)) return undefined;
  for (const m of messages as Message[]) if (m !== null && typeof m === "object" && role(m.role)) return m.content;
  return undefined;
}

/**
 * Bun.hash (wyhash, 64 bits, ~10 GB/s) chained over the texts, so nothing is concatenated: a 30 KB
 * system prompt costs ~3 µs. A NUL step between the two messages keeps text moved from one to the
 * other from giving the same key.
 */
function prefixHash(system: unknown, user: unknown): string | null {
  const s = hashText(system, 0n);
  const between = Bun.hash("\u0000", s ?? 0n) as bigint;
  const u = hashText(user, between);
  return s === null && u === null ? null : (u ?? between).toString(36);
}

/** A message's text (a string, or the `text` of its parts: images and other parts are left out) hashed on from `seed`; null without text. */
function hashText(content: unknown, seed: bigint): bigint | null {
  if (typeof content === "string") return content === "" ? null : (Bun.hash(content, seed) as bigint);
  if (!Array.isArray(content)) return null;
  let h: bigint | null = null;
  for (const part of content) {
    const t = (part as { text?: unknown } | null)?.text;
    if (typeof t === "string" && t !== "") h = Bun.hash(t, h ?? seed) as bigint;
  }
  return h;
}
