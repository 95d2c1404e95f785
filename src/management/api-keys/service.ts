// API key lifecycle. A caller can never grant (create or patch to) a scope its own key lacks, nor change
// or revoke a key holding one (it would otherwise un-expire or revoke a wider key, the admin key
// included). Every change goes into the key cache at once, so a revoked key fails on the very next request.
import { ApiError } from "../../http/errors";
import type { Scope } from "../../auth/scopes";
import type { AuditWriter, Transact } from "../audit/repo";
import type { ApiKeyCache } from "../../auth/key-cache";
import type { ManagementEvents } from "../events";
import type { ApiKeyRepo, ApiKeyRow } from "./repo";

/** What the API key routes and this service use. */
export interface ApiKeyFeature {
  apiKeys: ApiKeyRepo;
  /** Every change goes into the key cache at once, so a revoked key fails on the very next request. */
  keys: Pick<ApiKeyCache, "put">;
  events: Pick<ManagementEvents, "onApiKeyChanged">;
  /** A playground key's expiry when its create body names none, ms. */
  playgroundKeyTtlMs: number;
  /** Shared mode: writes answer 202 (propagation.ts). */
  shared: boolean;
  tx: Transact;
  audit: AuditWriter;
  now: () => number;
}

export interface CreateApiKeyInput {
  name: string;
  scopes: Scope[];
  /** undefined: none, except a playground key's default expiry. */
  expiresAt: number | null | undefined;
  playground: boolean;
}

export interface PatchApiKeyInput {
  name?: string;
  scopes?: Scope[];
  expiresAt?: number | null;
}

function assertGrantable(caller: ApiKeyRow, scopes: Scope[]): void {
  scopes.forEach((s, i) => {
    if (!caller.scopes.includes(s)) {
      throw new ApiError("invalid_parameter", `Invalid 'scopes[${i}]': the calling key does not hold this scope, so it cannot grant it.`, {
        param: `scopes[${i}]`,
      });
    }
  });
}

/** The target must be no wider than the caller: its scopes a subset of the caller's. */
function assertNotWider(caller: ApiKeyRow, target: ApiKeyRow): void {
  const missing = target.scopes.filter((s) => !caller.scopes.includes(s));
  if (missing.length > 0) {
    throw new ApiError(
      "insufficient_scope",
      `This API key holds scopes the calling key lacks (${missing.join(", ")}), so the calling key cannot change or revoke it.`,
    );
  }
}

const playgroundScoped = () =>
  new ApiError("invalid_parameter", "Invalid 'scopes': a playground key is inference-only and holds no scopes.", { param: "scopes" });

/** Playground keys are inference-only: no management scope, and an expiry by default. */
function playgroundRules(d: ApiKeyFeature, input: CreateApiKeyInput, now: number): CreateApiKeyInput {
  if (!input.playground) {
    if (input.scopes.length === 0)
      throw new ApiError("invalid_parameter", "Invalid 'scopes': expected a non-empty list.", { param: "scopes" });
    return input;
  }
  if (input.scopes.length > 0) {
    throw playgroundScoped();
  }
  return { ...input, expiresAt: input.expiresAt === undefined ? now + d.playgroundKeyTtlMs : input.expiresAt };
}

function assertFuture(expiresAt: number | null | undefined, now: number): void {
  if (expiresAt != null && expiresAt <= now) {
    throw new ApiError("invalid_parameter", "Invalid 'expires_at': must be in the future.", { param: "expires_at" });
  }
}

function applied(d: ApiKeyFeature, row: ApiKeyRow): void {
  d.keys.put(row);
  d.events.onApiKeyChanged(row);
}

export async function createApiKey(d: ApiKeyFeature, caller: ApiKeyRow, workspaceId: string, given: CreateApiKeyInput) {
  const now = d.now();
  const input = playgroundRules(d, given, now);
  assertGrantable(caller, input.scopes);
  assertFuture(input.expiresAt, now);
  const created = await d.tx(async (o) => {
    const c = await d.apiKeys.create({ workspaceId, ...input }, o);
    await d.audit(o, {
      workspaceId,
      type: "api_key.created",
      actorApiKeyId: caller.id,
      targetId: c.row.id,
      data: {
        name: c.row.name,
        key_prefix: c.row.keyPrefix,
        scopes: c.row.scopes,
        playground: c.row.playground,
        expires_at: c.row.expiresAt,
      },
    });
    return c;
  });
  applied(d, created.row);
  return created;
}

export async function getApiKey(d: ApiKeyFeature, workspaceId: string, id: string): Promise<ApiKeyRow> {
  const row = await d.apiKeys.get(workspaceId, id);
  if (!row) throw new ApiError("not_found", "API key not found.");
  return row;
}

export async function updateApiKey(d: ApiKeyFeature, caller: ApiKeyRow, workspaceId: string, id: string, patch: PatchApiKeyInput) {
  const current = await getApiKey(d, workspaceId, id);
  if (current.revokedAt !== null) throw new ApiError("invalid_request", "This API key is revoked and can no longer be changed.");
  assertNotWider(caller, current);
  if (patch.scopes && current.playground) {
    throw playgroundScoped();
  }
  if (patch.scopes) assertGrantable(caller, patch.scopes);
  assertFuture(patch.expiresAt, d.now());
  const row = await d.tx(async (o) => {
    const updated = await d.apiKeys.update(workspaceId, id, patch, o);
    await d.audit(o, {
      workspaceId,
      type: "api_key.updated",
      actorApiKeyId: caller.id,
      targetId: id,
      data: {
        changed: Object.keys(patch).filter((k) => patch[k as keyof PatchApiKeyInput] !== undefined),
        name: updated!.name,
        scopes: updated!.scopes,
        expires_at: updated!.expiresAt,
      },
    });
    return updated!;
  });
  applied(d, row);
  return row;
}

/** Revoking twice is a no-op (natural idempotency): the second call changes and records nothing. */
export async function revokeApiKey(d: ApiKeyFeature, caller: ApiKeyRow, workspaceId: string, id: string): Promise<ApiKeyRow> {
  const current = await getApiKey(d, workspaceId, id);
  if (current.revokedAt !== null) return current;
  assertNotWider(caller, current);
  const row = await d.tx(async (o) => {
    const updated = await d.apiKeys.update(workspaceId, id, { revokedAt: d.now() }, o);
    await d.audit(o, {
      workspaceId,
      type: "api_key.revoked",
      actorApiKeyId: caller.id,
      targetId: id,
      data: { name: current.name },
    });
    return updated!;
  });
  applied(d, row);
  return row;
}
