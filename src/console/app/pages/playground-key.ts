// The Playground's own key: an inference-only playground key (no scopes, excluded from the key list)
// minted on first use with a short expiry, kept in sessionStorage for this tab's session only, and minted
// again when the gateway refuses it (expired or revoked). Chat calls never carry the signed-in key.
import { ApiFailure, call, ws } from "../lib/api";
import type { Me } from "../lib/types";

export const PLAYGROUND_KEY = "switchyard.console.playground";

/** Long enough for a session at the console, short enough that a forgotten tab's key soon dies. */
const TTL_MS = 60 * 60 * 1000;
/** A key this close to its expiry is replaced before use rather than refused mid-call. */
const MARGIN_MS = 60 * 1000;

export interface HeldKey {
  key: string;
  api_key_id: string;
  workspace_id: string;
  /** The signed-in key that minted it: another sign-in in this tab mints its own. */
  minted_by: string;
  expires_at: string;
}

export function heldKey(me: Me): HeldKey | null {
  let held: HeldKey;
  try {
    held = JSON.parse(sessionStorage.getItem(PLAYGROUND_KEY) ?? "null") as HeldKey;
  } catch {
    return null;
  }
  if (!held || typeof held.key !== "string") return null;
  if (held.workspace_id !== me.workspace_id || held.minted_by !== me.api_key_id) return null;
  if (Date.parse(held.expires_at) - MARGIN_MS <= Date.now()) return null;
  return held;
}

export async function mintKey(me: Me): Promise<HeldKey> {
  sessionStorage.removeItem(PLAYGROUND_KEY);
  const r = await call("POST", ws(me.workspace_id, "/api-keys"), {
    name: "Console playground",
    scopes: [],
    playground: true,
    expires_at: new Date(Date.now() + TTL_MS).toISOString(),
  });
  const held: HeldKey = {
    key: String(r.key),
    api_key_id: String(r.api_key_id),
    workspace_id: me.workspace_id,
    minted_by: me.api_key_id,
    expires_at: String(r.expires_at),
  };
  sessionStorage.setItem(PLAYGROUND_KEY, JSON.stringify(held));
  return held;
}

/** Runs `use` with the playground key; a 401 (the key expired or was revoked) mints a new one and retries once. */
export async function withPlaygroundKey<T>(me: Me, use: (key: string) => Promise<T>): Promise<T> {
  const held = heldKey(me) ?? (await mintKey(me));
  try {
    return await use(held.key);
  } catch (e) {
    if (!(e instanceof ApiFailure) || e.status !== 401) throw e;
    return use((await mintKey(me)).key);
  }
}
