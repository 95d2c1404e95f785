// AuditLog: being built this session (issue 57).
import type { PageProps } from "../lib/types";
import { empty, page } from "../lib/ui";

export function AuditLog(_: PageProps) {
  return page("AuditLog", empty("This page is being built."));
}
