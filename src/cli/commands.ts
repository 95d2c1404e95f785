// The sub-commands other than `serve` (README "Running it"). They work on the database directly; a running
// server on the same database sees their effect within 2 s (keys are read on a cache miss, credits and
// workspaces are polled).
import type { Deps } from "../deps";
import { isScope, SCOPES, type Scope } from "../auth/scopes";
import { renderWorkspace } from "../management/workspaces/repo";
import { renderApiKey } from "../management/api-keys/repo";
import { addCredits } from "./credits";

export class UsageError extends Error {}

type Options = Record<string, string | true>;

function required(opts: Options, name: string): string {
  const v = opts[name];
  if (typeof v !== "string" || v.trim() === "") throw new UsageError(`--${name} is required`);
  return v;
}

export function parseScopes(raw: string): Scope[] {
  if (raw === "all") return [...SCOPES];
  const list = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((s) => !isScope(s));
  if (list.length === 0 || bad.length)
    throw new UsageError(
      `--scopes must be "all" or a comma list of: ${SCOPES.join(", ")}${bad.length ? ` (unknown: ${bad.join(", ")})` : ""}`,
    );
  return list as Scope[];
}

async function workspaceOrFail(deps: Deps, id: string) {
  const ws = await deps.repos.workspaces.get(id);
  if (!ws) throw new UsageError(`workspace ${id} not found`);
  return ws;
}

export async function workspaceCreate(deps: Deps, opts: Options) {
  const name = required(opts, "name");
  if (name.length > 100) throw new UsageError("--name must be 1 to 100 characters");
  return renderWorkspace(await deps.repos.workspaces.create(name));
}

export async function keyCreate(deps: Deps, opts: Options) {
  const ws = await workspaceOrFail(deps, required(opts, "workspace"));
  const name = required(opts, "name");
  if (name.length > 100) throw new UsageError("--name must be 1 to 100 characters");
  const scopes = parseScopes(required(opts, "scopes"));
  const { row, key } = await deps.repos.apiKeys.create({ workspaceId: ws.id, name, scopes });
  return { ...renderApiKey(row), key };
}

export async function creditsAdd(deps: Deps, opts: Options) {
  const ws = await workspaceOrFail(deps, required(opts, "workspace"));
  const raw = required(opts, "usd");
  if (!/^-?\d+(\.\d{1,6})?$/.test(raw)) throw new UsageError("--usd must be a number of dollars with at most 6 decimals, e.g. 10 or -2.5");
  return addCredits(deps.db, ws.id, raw);
}
