// The console's pages, in navigation order, with the scope each needs.
import { h } from "preact";
import type { Page } from "../lib/types";
import { ApiKeys } from "./api-keys";
import { AuditLog } from "./audit-log";
import { Budgets } from "./budgets";
import { Members } from "./members";
import { Overview } from "./overview";
import { Playground } from "./playground";
import { ProviderKeys } from "./provider-keys";
import { Requests } from "./requests";
import { Routing } from "./routing";

export const PAGES: Page[] = [
  { slug: "overview", name: "Overview", scope: "usage:read", view: (p) => h(Overview, p) },
  { slug: "requests", name: "Requests", scope: "usage:read", view: (p) => h(Requests, p) },
  { slug: "routing", name: "Routing", scope: "routing:read", view: (p) => h(Routing, p) },
  { slug: "api-keys", name: "API keys", scope: "keys:read", view: (p) => h(ApiKeys, p) },
  { slug: "provider-keys", name: "Provider keys", scope: "byok:read", view: (p) => h(ProviderKeys, p) },
  { slug: "budgets", name: "Budgets", scope: "budgets:read", view: (p) => h(Budgets, p) },
  { slug: "members", name: "Members", scope: "members:read", view: (p) => h(Members, p) },
  { slug: "audit-log", name: "Audit log", scope: "audit:read", view: (p) => h(AuditLog, p) },
  { slug: "playground", name: "Playground", scope: "keys:write", view: (p) => h(Playground, p) },
];
