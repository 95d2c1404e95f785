// Routing: being built this session (issue 57).
import type { PageProps } from "../lib/types";
import { empty, page } from "../lib/ui";

export function Routing(_: PageProps) {
  return page("Routing", empty("This page is being built."));
}
