// How one audit event reads in the table: its time, who did it, what it touched and its details, every
// value a text child (names and details are user-controlled).
import { h, type ComponentChildren } from "preact";
import type { Row } from "../lib/api";
import { href } from "../lib/route";

/** API key ID → name, when the signed-in key may list keys; otherwise empty and IDs show alone. */
export type Names = Map<string, string>;

export const when = (iso: unknown) =>
  typeof iso === "string" ? h("time", { dateTime: iso }, iso.replace("T", " ").replace(/(\.\d+)?Z$/, " UTC")) : "";

function named(id: string, names: Names): ComponentChildren {
  const name = names.get(id);
  return name === undefined
    ? h("code", null, id)
    : h("span", null, [h("span", { class: "al-name" }, name), h("br", null), h("small", null, id)]);
}

export function actor(r: Row, names: Names): ComponentChildren {
  return typeof r.actor_api_key_id === "string" ? named(r.actor_api_key_id, names) : "system";
}

export function target(r: Row, names: Names, workspaceId: string): ComponentChildren {
  const id = r.target_id;
  if (typeof id !== "string") return "";
  if (id === workspaceId) return "this workspace";
  // A request's detail was read: link to it, as the Requests page shows it.
  if (String(r.type).startsWith("request.")) return h("a", { href: href("requests", id) }, id);
  return named(id, names);
}

/** One line per field; nested objects flatten to dotted keys (`changes.optimize: ttft`). */
function lines(data: Row, prefix = ""): string[] {
  return Object.entries(data).flatMap(([k, v]) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? lines(v as Row, `${prefix}${k}.`)
      : [`${prefix}${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`],
  );
}

export function details(r: Row): ComponentChildren {
  const all = r.data && typeof r.data === "object" ? lines(r.data as Row) : [];
  return all.length
    ? h(
        "ul",
        { class: "al-details" },
        all.map((l) => h("li", null, l)),
      )
    : "";
}
