// Budgets: one per scope and period; `limit` is USD in the API and integer microdollars in storage.
// A record's `spend` is its current UTC period's spend, read back from the request records with the
// same applicability rule the live counters use (metering/budget-spend.ts).
import { Type, type Static } from "@sinclair/typebox";
import { ApiError } from "../../http/errors";
import { BUDGET_PERIODS, periodBounds, type BudgetPeriod } from "../../metering/periods";
import { Iso, listOf, Propagation, StringOrNull } from "../response-schemas";
import { newId } from "../../platform/ids";
import type { AuditWriter, Transact } from "../audit/repo";
import { isUniqueViolation } from "../db-errors";
import type { Catalog } from "../../catalog/types";
import type { ApiKeyRepo } from "../api-keys/repo";
import type { ManagementEvents } from "../events";
import type { PropagationStatus } from "../propagation";
import { iso } from "../validate";
import type { BudgetPatch, BudgetRepo, BudgetRow } from "./repo";
import type { Orm } from "../../platform/db/database";
import { usdToMicrodollars } from "../../metering/pricing";

export type BudgetScope = "workspace" | "api_key" | "byok";

export interface CreateBudgetInput {
  scope: BudgetScope;
  scopeId: string | null;
  period: BudgetPeriod;
  limitMicrodollars: number;
  enforce: boolean;
  includeByok: boolean;
}

/** What the budget routes and this service use. */
export interface BudgetFeature {
  budgets: BudgetRepo;
  /** scope_id of an api_key budget must name a key of the workspace. */
  apiKeys: Pick<ApiKeyRepo, "get">;
  catalog: () => Catalog;
  events: Pick<ManagementEvents, "onBudgetChanged">;
  /** A budget's spend in [start, end), microdollars (the record's `spend`). */
  spend: (b: BudgetRow, start: number, end: number) => Promise<number>;
  /** Shared mode: writes answer 202 (propagation.ts). */
  shared: boolean;
  tx: Transact;
  audit: AuditWriter;
  now: () => number;
}

const invalid = (param: string, why: string) => new ApiError("validation_error", `Invalid '${param}': ${why}.`, { param });

/** USD → whole microdollars; at least one microdollar, at most a billion dollars. */
export function limitToMicro(usd: number, param = "limit"): number {
  const micro = Number.isFinite(usd) ? usdToMicrodollars(usd) : NaN;
  if (!Number.isFinite(usd) || micro < 1 || usd > 1e9) throw invalid(param, "expected a number of USD greater than 0 (at most 1e9)");
  return micro;
}

/** scope_id must name something that exists: an API key of this workspace, or a BYOK provider. */
async function checkScope(d: BudgetFeature, workspaceId: string, scope: BudgetScope, scopeId: string | null): Promise<string> {
  if (scope === "workspace") {
    if (scopeId !== null) throw invalid("scope_id", "must be absent for a workspace budget");
    return "";
  }
  if (scopeId === null) throw invalid("scope_id", `is required for a ${scope} budget`);
  if (scope === "api_key" && !(await d.apiKeys.get(workspaceId, scopeId))) throw invalid("scope_id", "no such API key in this workspace");
  if (scope === "byok" && !d.catalog().providers.get(scopeId)?.byok) throw invalid("scope_id", "not a BYOK provider ID");
  return scopeId;
}

const exists = () => new ApiError("budget_exists", "A budget already exists for this scope and period.");

export async function createBudget(
  d: BudgetFeature,
  actorId: string | null,
  workspaceId: string,
  input: CreateBudgetInput,
  within?: (o: Orm, row: BudgetRow) => Promise<void>,
): Promise<BudgetRow> {
  const scopeId = await checkScope(d, workspaceId, input.scope, input.scopeId);
  const now = d.now();
  const row: BudgetRow = {
    id: newId(),
    workspaceId,
    scope: input.scope,
    scopeId,
    period: input.period,
    limitMicrodollars: input.limitMicrodollars,
    enforce: input.enforce,
    includeByok: input.includeByok,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await d.tx(async (o) => {
      if (await d.budgets.find(o, workspaceId, row.scope, scopeId, row.period)) throw exists();
      await d.budgets.insert(o, row);
      await d.audit(o, { workspaceId, type: "budget.created", actorApiKeyId: actorId, targetId: row.id, data: auditData(row) });
      await within?.(o, row);
    });
  } catch (err) {
    // Two creates racing past the check: the unique index decides, and the loser gets the same 409.
    if (isUniqueViolation(err)) throw exists();
    throw err;
  }
  d.events.onBudgetChanged({ kind: "upserted", budget: row });
  return row;
}

export async function getBudget(d: BudgetFeature, workspaceId: string, id: string): Promise<BudgetRow> {
  const row = await d.budgets.get(workspaceId, id);
  if (!row) throw new ApiError("not_found", "Budget not found.");
  return row;
}

export async function updateBudget(
  d: BudgetFeature,
  actorId: string | null,
  workspaceId: string,
  id: string,
  patch: BudgetPatch,
): Promise<BudgetRow> {
  await getBudget(d, workspaceId, id);
  const row = await d.tx(async (o) => {
    const updated = await d.budgets.update(o, workspaceId, id, patch, d.now());
    await d.audit(o, { workspaceId, type: "budget.updated", actorApiKeyId: actorId, targetId: id, data: auditData(updated!) });
    return updated!;
  });
  d.events.onBudgetChanged({ kind: "upserted", budget: row });
  return row;
}

export async function deleteBudget(d: BudgetFeature, actorId: string | null, workspaceId: string, id: string): Promise<void> {
  const row = await d.tx(async (o) => {
    const removed = await d.budgets.remove(o, workspaceId, id);
    if (!removed) throw new ApiError("not_found", "Budget not found.");
    await d.audit(o, { workspaceId, type: "budget.deleted", actorApiKeyId: actorId, targetId: id, data: auditData(removed) });
    return removed;
  });
  d.events.onBudgetChanged({ kind: "deleted", budget: row });
}

function auditData(b: BudgetRow) {
  return {
    scope: b.scope,
    scope_id: b.scopeId || null,
    period: b.period,
    limit_microdollars: b.limitMicrodollars,
    enforce: b.enforce,
    include_byok: b.includeByok,
  };
}

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const Budget = Type.Object({
  budget_id: Type.String(),
  workspace_id: Type.String(),
  scope: literals<BudgetScope>(["workspace", "api_key", "byok"]),
  scope_id: StringOrNull,
  period: literals(BUDGET_PERIODS),
  limit: Type.Number({ description: "USD" }),
  enforce: Type.Boolean(),
  include_byok: Type.Boolean(),
  spend: Type.Number({ description: "USD spent in the current period" }),
  period_start: Iso,
  period_end: Iso,
  created_at: Iso,
  updated_at: Iso,
  propagation_status: Propagation,
});
export const BudgetList = listOf("budgets", Budget);
/** A delete answered 202 (shared mode); applied at once it is a 204 without a body. */
export const BudgetDeleted = Type.Object({ budget_id: Type.String(), deleted: Type.Literal(true), propagation_status: Propagation });

export async function renderBudget(
  d: BudgetFeature,
  b: BudgetRow,
  propagation: PropagationStatus = null,
  now = d.now(),
): Promise<Static<typeof Budget>> {
  const bounds = periodBounds(b.period as BudgetPeriod, now);
  const spend = await d.spend(b, bounds.start, bounds.end);
  return {
    budget_id: b.id,
    workspace_id: b.workspaceId,
    scope: b.scope as BudgetScope,
    scope_id: b.scopeId === "" ? null : b.scopeId,
    period: b.period as BudgetPeriod,
    limit: b.limitMicrodollars / 1_000_000,
    enforce: b.enforce,
    include_byok: b.includeByok,
    spend: spend / 1_000_000,
    period_start: iso(bounds.start),
    period_end: iso(bounds.end),
    created_at: iso(b.createdAt),
    updated_at: iso(b.updatedAt),
    propagation_status: propagation,
  };
}
