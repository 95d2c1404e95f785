// Shared mode's two halves of cache invalidation for the control plane: management events of this
// instance → messages on the bus, and messages from other instances → re-reads of Postgres into this
// instance's caches. Workspace rows themselves are not cached (read per request); the per-workspace
// settings the hot path holds are the routing defaults and BYOK keys, both covered here.
import type { ApiKeyCache } from "../auth/key-cache";
import type { Invalidation, InvalidationBus } from "../platform/invalidation";
import type { ApiKeyRepo } from "./api-keys/repo";
import type { ManagementEvents } from "./events";
import type { Management } from "./module";

/** Wraps the events so that, after the local reaction, other instances are told. */
export function publishingEvents(inner: ManagementEvents, bus: Pick<InvalidationBus, "publish">): ManagementEvents {
  return {
    onApiKeyChanged(row) {
      inner.onApiKeyChanged(row);
      bus.publish({ kind: "api_key", workspaceId: row.workspaceId, id: row.id });
    },
    onBudgetChanged(change) {
      inner.onBudgetChanged(change);
      bus.publish({ kind: "budgets", workspaceId: change.budget.workspaceId });
    },
    onRoutingDefaultsChanged(workspaceId) {
      inner.onRoutingDefaultsChanged(workspaceId);
      bus.publish({ kind: "routing_defaults", workspaceId });
    },
    onByokChanged(workspaceId) {
      inner.onByokChanged(workspaceId);
      bus.publish({ kind: "byok_keys", workspaceId });
    },
  };
}

export interface InvalidationTargets {
  keys: ApiKeyCache;
  apiKeys: ApiKeyRepo;
  management: Pick<Management, "routingDefaults" | "byok">;
  budgets: { reloadDefinitions(): Promise<void> };
}

/** Applies another instance's change by re-reading it from Postgres. */
export function invalidationHandler(t: InvalidationTargets): (msg: Invalidation) => Promise<void> {
  return async (msg) => {
    switch (msg.kind) {
      case "api_key": {
        const row = await t.apiKeys.get(msg.workspaceId, msg.id);
        if (row) t.keys.put(row);
        else t.keys.evictById(msg.id);
        return;
      }
      case "routing_defaults":
        return t.management.routingDefaults.reload();
      case "byok_keys":
        return t.management.byok.refreshWorkspace(msg.workspaceId);
      case "budgets":
        return t.budgets.reloadDefinitions();
    }
  };
}
