// Routing defaults for the hot path: every workspace's row in memory, read synchronously by the router.
// Writes through this process apply at once (the next request sees them); reload() heals changes made
// elsewhere (see LiveMap).
import { effectiveRoutingDefaults } from "../../routing/defaults";
import type { EffectiveRoutingDefaults, WorkspaceRoutingDefaults } from "../../routing/types";
import { LiveMap } from "../live-map";
import type { RoutingDefaultsRepo, StoredRoutingDefaults } from "./repo";

const NEVER_SET: EffectiveRoutingDefaults = Object.freeze(effectiveRoutingDefaults(undefined));

export class RoutingDefaultsStore {
  private readonly rows = new LiveMap<StoredRoutingDefaults>();
  private readonly effective = new WeakMap<StoredRoutingDefaults, EffectiveRoutingDefaults>();

  constructor(private readonly repo: RoutingDefaultsRepo) {}

  /**
   * Every field with its effective value (built-in defaults for what the workspace never set). Read on
   * every request: computed once per stored row (rows are replaced, never changed in place).
   */
  get(workspaceId: string): EffectiveRoutingDefaults {
    const row = this.rows.get(workspaceId);
    if (row === undefined) return NEVER_SET;
    let effective = this.effective.get(row);
    if (effective === undefined) {
      effective = Object.freeze(effectiveRoutingDefaults(row.defaults));
      this.effective.set(row, effective);
    }
    return effective;
  }

  /** Only what the workspace set (the input routing/defaults.ts merges request options over). */
  stored(workspaceId: string): WorkspaceRoutingDefaults | undefined {
    return this.rows.get(workspaceId)?.defaults;
  }

  updatedAt(workspaceId: string): number | null {
    return this.rows.get(workspaceId)?.updatedAt ?? null;
  }

  /** A committed write through this process; undefined after a delete. */
  apply(workspaceId: string, row: StoredRoutingDefaults | undefined): void {
    this.rows.set(workspaceId, row);
  }

  reload(): Promise<void> {
    return this.rows.reload(() => this.repo.all());
  }
}
