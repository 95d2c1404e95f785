// Members: being built this session (issue 57).
import type { PageProps } from "../lib/types";
import { empty, page } from "../lib/ui";

export function Members(_: PageProps) {
  return page("Members", empty("This page is being built."));
}
