// The closed set of audit event types: its own module, free of the database layer, so that the console
// bundle can import it too.
export const AUDIT_TYPES = [
  "workspace.updated",
  "routing_defaults.updated",
  "routing_defaults.deleted",
  "request.detail.read",
  "budget.created",
  "budget.updated",
  "budget.deleted",
  "api_key.created",
  "api_key.updated",
  "api_key.revoked",
  "byok_key.created",
  "byok_key.updated",
  "byok_key.deleted",
  "member.added",
  "member.updated",
  "member.removed",
  "invite.created",
  "invite.revoked",
  "invite.accepted",
] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];
