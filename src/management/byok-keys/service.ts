// BYOK keys (API document §4.3 rules 1-6): the secret is checked with the provider before anything is
// saved, sealed with AES-256-GCM under the master key, and never rendered, logged or audited; only a
// masked prefix is kept for display. The hot-path store is refreshed before the answer.
import { Type, type Static } from "@sinclair/typebox";
import type { Catalog, ProviderEntry } from "../../catalog/types";
import { maskSecret, sealSecret } from "../../crypto/secret-box";
import { ApiError } from "../../http/errors";
import { newId } from "../../platform/ids";
import type { Logger } from "../../platform/logger";
import type { MasterKey } from "../../platform/master-key";
import type { AuditWriter, Transact } from "../audit/repo";
import type { ManagementEvents } from "../events";
import type { PropagationStatus } from "../propagation";
import { iso } from "../validate";
import { Iso, IsoOrNull, listOf, Propagation, StringOrNull } from "../response-schemas";
import type { CredentialValidator } from "./credential";
import type { ByokPatch, ByokRepo, ByokRow, TierSource, ValidationStatus } from "./repo";
import { byokAad, type ByokKeyStore } from "./store";
import type { Orm } from "../../platform/db/database";

/** What the BYOK routes and this service use. */
export interface ByokFeature {
  byok: ByokRepo;
  /** The hot-path store, refreshed before a write answers so the key is routable (or gone) at once. */
  store: Pick<ByokKeyStore, "refreshWorkspace">;
  catalog: () => Catalog;
  masterKey: () => MasterKey;
  /** The provider's check of a secret, and how long it may take (config `byok_validation_timeout_ms`). */
  validate: CredentialValidator;
  validationTimeoutMs: number;
  events: Pick<ManagementEvents, "onByokChanged">;
  /** Shared mode: writes answer 202 (propagation.ts). */
  shared: boolean;
  tx: Transact;
  audit: AuditWriter;
  logger: Logger;
  now: () => number;
}

export interface CreateByokInput {
  provider: string;
  apiKey: string;
  name: string | null;
  isDefault: boolean;
  accountTier: string | null;
}

export interface PatchByokInput {
  name?: string;
  isDefault?: boolean;
  disabled?: boolean;
  /** null: back to the provider's conservative default tier. */
  accountTier?: string | null;
}

function byokProvider(d: ByokFeature, id: string): ProviderEntry {
  const p = d.catalog().providers.get(id);
  if (!p?.byok)
    throw new ApiError("invalid_parameter", "Invalid 'provider': not a provider that accepts BYOK keys (see /v1/byok/providers).", {
      param: "provider",
    });
  return p;
}

function checkTier(p: ProviderEntry, tier: string): void {
  if (!p.tiers.some((t) => t.name === tier)) {
    throw new ApiError("invalid_parameter", `Invalid 'account_tier': not a tier of ${p.id} (see /v1/byok/providers/${p.id}/tiers).`, {
      param: "account_tier",
    });
  }
}

/** The key's tier: what the user said, else what the provider revealed, else the provider's default. */
function resolveTier(
  p: ProviderEntry,
  given: string | null,
  detected: string | undefined,
): { tier: string | null; source: TierSource | null } {
  if (given !== null) return { tier: given, source: "user_specified" };
  if (detected && p.tiers.some((t) => t.name === detected)) return { tier: detected, source: "auto_detected" };
  return p.defaultTier ? { tier: p.defaultTier, source: "fallback" } : { tier: null, source: null };
}

async function validateWithProvider(d: ByokFeature, p: ProviderEntry, secret: string): Promise<string | undefined> {
  const check = await d.validate(p, secret, d.validationTimeoutMs);
  // Only the outcome is logged: an upstream message might quote part of the key.
  d.logger.debug("BYOK credential validation", { provider: p.id, ok: check.ok, kind: check.ok ? undefined : check.kind });
  if (check.ok) return check.detectedTier;
  if (check.kind === "invalid") {
    throw new ApiError("invalid_provider_credentials", `${p.displayName} rejected this API key; nothing was saved.`, { param: "api_key" });
  }
  throw new ApiError(
    "provider_validation_unavailable",
    `${p.displayName} could not validate the key right now; nothing was saved. Retry.`,
    {
      provider: p.id,
    },
  );
}

async function applied(d: ByokFeature, workspaceId: string): Promise<void> {
  await d.store.refreshWorkspace(workspaceId);
  d.events.onByokChanged(workspaceId);
}

export async function createByokKey(
  d: ByokFeature,
  actorId: string | null,
  workspaceId: string,
  input: CreateByokInput,
  within?: (o: Orm, row: ByokRow) => Promise<void>,
): Promise<ByokRow> {
  const p = byokProvider(d, input.provider);
  if (input.accountTier !== null) checkTier(p, input.accountTier);
  const detected = await validateWithProvider(d, p, input.apiKey);
  const { tier, source } = resolveTier(p, input.accountTier, detected);
  const now = d.now();
  const id = newId();
  const sealed = sealSecret(d.masterKey(), input.apiKey, byokAad({ workspaceId, id }));
  const row: ByokRow = {
    id,
    workspaceId,
    provider: p.id,
    name: input.name ?? `${p.displayName} key`,
    keyPrefix: maskSecret(input.apiKey),
    ...sealed,
    isDefault: input.isDefault,
    disabled: false,
    validationStatus: "valid" satisfies ValidationStatus,
    accountTier: tier,
    accountTierSource: source,
    lastValidatedAt: now,
    createdAt: now,
    updatedAt: now,
  };
  await d.tx(async (o) => {
    if (row.isDefault) await d.byok.clearDefault(o, workspaceId, p.id, id, now);
    await d.byok.insert(o, row);
    await d.audit(o, {
      workspaceId,
      type: "byok_key.created",
      actorApiKeyId: actorId,
      targetId: id,
      data: { provider: p.id, name: row.name, is_default: row.isDefault, account_tier: tier, account_tier_source: source },
    });
    await within?.(o, row);
  });
  await applied(d, workspaceId);
  return row;
}

export async function getByokKey(d: ByokFeature, workspaceId: string, id: string): Promise<ByokRow> {
  const row = await d.byok.get(workspaceId, id);
  if (!row) throw new ApiError("not_found", "BYOK key not found.");
  return row;
}

export async function updateByokKey(
  d: ByokFeature,
  actorId: string | null,
  workspaceId: string,
  id: string,
  input: PatchByokInput,
): Promise<ByokRow> {
  const current = await getByokKey(d, workspaceId, id);
  const patch: ByokPatch = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.isDefault !== undefined) patch.isDefault = input.isDefault;
  if (input.disabled !== undefined) patch.disabled = input.disabled;
  if (input.accountTier !== undefined) {
    const p = d.catalog().providers.get(current.provider);
    if (input.accountTier !== null && p) checkTier(p, input.accountTier);
    const r =
      input.accountTier === null
        ? { tier: p?.defaultTier ?? null, source: p?.defaultTier ? "fallback" : null }
        : { tier: input.accountTier, source: "user_specified" };
    patch.accountTier = r.tier;
    patch.accountTierSource = r.source as TierSource | null;
  }
  const now = d.now();
  const row = await d.tx(async (o) => {
    if (patch.isDefault) await d.byok.clearDefault(o, workspaceId, current.provider, id, now);
    const updated = await d.byok.update(o, workspaceId, id, patch, now);
    await d.audit(o, {
      workspaceId,
      type: "byok_key.updated",
      actorApiKeyId: actorId,
      targetId: id,
      data: {
        provider: current.provider,
        changed: Object.keys(patch),
        name: updated!.name,
        is_default: updated!.isDefault,
        disabled: updated!.disabled,
        account_tier: updated!.accountTier,
      },
    });
    return updated!;
  });
  await applied(d, workspaceId);
  return row;
}

export async function deleteByokKey(d: ByokFeature, actorId: string | null, workspaceId: string, id: string): Promise<void> {
  await d.tx(async (o) => {
    const removed = await d.byok.remove(o, workspaceId, id);
    if (!removed) throw new ApiError("not_found", "BYOK key not found.");
    await d.audit(o, {
      workspaceId,
      type: "byok_key.deleted",
      actorApiKeyId: actorId,
      targetId: id,
      data: { provider: removed.provider, name: removed.name },
    });
  });
  await applied(d, workspaceId);
}

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const ByokKey = Type.Object({
  id: Type.String(),
  workspace_id: Type.String(),
  provider: Type.String(),
  name: Type.String(),
  key_prefix: Type.String({ description: "a masked prefix of the secret, for display" }),
  is_default: Type.Boolean(),
  disabled: Type.Boolean(),
  validation_status: literals<ValidationStatus>(["valid", "pending", "invalid", "error"]),
  account_tier: StringOrNull,
  account_tier_source: Type.Union([literals<TierSource>(["auto_detected", "user_specified", "fallback"]), Type.Null()]),
  last_validated_at: IsoOrNull,
  created_at: Iso,
  updated_at: Iso,
  propagation_status: Propagation,
});
export const ByokKeyList = listOf("byok_keys", ByokKey);
/** A delete answered 202 (shared mode); applied at once it is a 204 without a body. */
export const ByokKeyDeleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true), propagation_status: Propagation });

/** The redacted metadata of API document §2.12: never the secret, its ciphertext or nonce. */
export const renderByokKey = (k: ByokRow, propagation: PropagationStatus = null): Static<typeof ByokKey> => ({
  id: k.id,
  workspace_id: k.workspaceId,
  provider: k.provider,
  name: k.name,
  key_prefix: k.keyPrefix,
  is_default: k.isDefault,
  disabled: k.disabled,
  validation_status: k.validationStatus as ValidationStatus,
  account_tier: k.accountTier,
  account_tier_source: k.accountTierSource as TierSource | null,
  last_validated_at: iso(k.lastValidatedAt),
  created_at: iso(k.createdAt),
  updated_at: iso(k.updatedAt),
  propagation_status: propagation,
});
