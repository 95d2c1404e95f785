// Helpers of the Responses store tests: waiting for a kept response, another workspace's key, the texts
// an upstream body carries in order, SSE parsing.
import { SCOPES } from "../../../src/auth/scopes";
import type { InProcessServer } from "../../support/server";
import { eventually } from "../../support/spawn";

/** True once the store holds the response (it is queued after the answer is written). */
export function keptBy(s: InProcessServer, workspaceId: string, id: string): Promise<boolean> {
  return eventually(async () => (await s.deps.responseStore!.find(workspaceId, id, Date.now())) !== null, 3_000, 5);
}

export async function otherWorkspaceKey(s: InProcessServer): Promise<string> {
  const other = await s.deps.repos.workspaces.create("Other");
  const { key } = await s.deps.repos.apiKeys.create({ workspaceId: other.id, name: "other", scopes: [...SCOPES] });
  return key;
}

/** Every text of a chat / Messages / Gemini / Responses request body, in order. */
export function texts(body: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, key: string | null): void => {
    if (typeof v === "string") {
      if (key === "text" || key === "content") out.push(v);
      return;
    }
    if (Array.isArray(v)) return v.forEach((x) => walk(x, key === "content" || key === "parts" ? null : key));
    if (typeof v !== "object" || v === null) return;
    for (const [k, x] of Object.entries(v)) {
      if (k === "system" || k === "systemInstruction" || k === "instructions" || k === "tools") continue;
      walk(x, k);
    }
  };
  const b = body as Record<string, unknown>;
  walk(b.messages ?? b.contents ?? b.input, null);
  return out;
}

/** SSE text → [event name, parsed data] per event. */
export function parseSse(text: string): [string, Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = [];
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").filter((l) => l !== "" && !l.startsWith(":"));
    const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6));
    if (data.length === 0) continue;
    const name = lines.find((l) => l.startsWith("event: "))?.slice(7) ?? "";
    out.push([name, JSON.parse(data.join("\n")) as Record<string, unknown>]);
  }
  return out;
}
