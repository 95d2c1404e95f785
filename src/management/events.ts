// What the management services announce after each committed write. The lead wires these to the
// metering budget counters and to cross-instance invalidation (Redis pub/sub); the default does nothing.
import type { ApiKeyRow } from "./api-keys/repo";
import type { BudgetRow } from "./budgets/repo";

export type BudgetChange = { kind: "upserted"; budget: BudgetRow } | { kind: "deleted"; budget: BudgetRow };

export interface ManagementEvents {
  onApiKeyChanged(row: ApiKeyRow): void;
  onBudgetChanged(change: BudgetChange): void;
  onRoutingDefaultsChanged(workspaceId: string): void;
  onByokChanged(workspaceId: string): void;
}

export const noEvents: ManagementEvents = {
  onApiKeyChanged: () => {},
  onBudgetChanged: () => {},
  onRoutingDefaultsChanged: () => {},
  onByokChanged: () => {},
};
