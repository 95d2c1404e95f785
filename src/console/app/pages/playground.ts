// Playground: being built this session (issue 57).
import type { PageProps } from "../lib/types";
import { empty, page } from "../lib/ui";

export function Playground(_: PageProps) {
  return page("Playground", empty("This page is being built."));
}
