// Budgets: being built this session (issue 57).
import type { PageProps } from "../lib/types";
import { empty, page } from "../lib/ui";

export function Budgets(_: PageProps) {
  return page("Budgets", empty("This page is being built."));
}
