// ProviderKeys: being built this session (issue 57).
import type { PageProps } from "../lib/types";
import { empty, page } from "../lib/ui";

export function ProviderKeys(_: PageProps) {
  return page("ProviderKeys", empty("This page is being built."));
}
