// What a page receives: the signed-in key's identity and where in the page the address points.
import type { VNode } from "preact";

export interface Me {
  api_key_id: string;
  workspace_id: string;
  name: string;
  scopes: string[];
}

export interface PageProps {
  me: Me;
  /** The address after the page's slug (e.g. a request ID), or null. */
  rest: string | null;
}

export interface Page {
  slug: string;
  name: string;
  /** The scope the page needs; without it the page is disabled and says so. */
  scope: string;
  view: (p: PageProps) => VNode<any>;
}
