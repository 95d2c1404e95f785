// ApiKeys: being built this session (issue 57).
import type { PageProps } from "../lib/types";
import { empty, page } from "../lib/ui";

export function ApiKeys(_: PageProps) {
  return page("ApiKeys", empty("This page is being built."));
}
