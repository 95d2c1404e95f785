// Routing: the workspace's routing defaults (a form, or read-only without routing:write) above the
// router's live view of every route.
import "./routing.css";
import { h } from "preact";
import type { PageProps } from "../lib/types";
import { page } from "../lib/ui";
import { RoutingDefaults } from "./routing-defaults";
import { RoutingHealth } from "./routing-health";

export function Routing({ me }: PageProps) {
  return page("Routing", [h(RoutingDefaults, { me }), h(RoutingHealth, null)]);
}
