// docs/contract.md "Rate limits, credits and budgets": a write answers 200/201 (204 for deletes) when every instance already enforces it, and
// 202 with propagation_status "pending" when other instances pick it up asynchronously (shared mode,
// REDIS_URL set). The one place that decides.
export type WriteKind = "created" | "updated" | "deleted";
export type PropagationStatus = "pending" | null;

const APPLIED: Record<WriteKind, number> = { created: 201, updated: 200, deleted: 204 };

export function writeOutcome(shared: boolean, kind: WriteKind): { status: number; propagationStatus: PropagationStatus } {
  return shared ? { status: 202, propagationStatus: "pending" } : { status: APPLIED[kind], propagationStatus: null };
}
