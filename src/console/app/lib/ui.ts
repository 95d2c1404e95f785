// Small building blocks every page shares. Every user-controlled string is a text child (Preact escapes
// it), never markup.
import { h, type ComponentChildren, type VNode } from "preact";
import type { Row } from "./api";
import type { Loaded } from "./hooks";

export const dollars = (micro: unknown) => {
  const n = Number(micro ?? 0);
  return `${n < 0 ? "-" : ""}$${(Math.abs(n) / 1e6).toFixed(6)}`;
};
export const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));

export type Column = [string, (r: Row) => ComponentChildren];

/** A table; the first column becomes a button when `onRow` is given (keyboard-reachable row opening). */
export function table(cols: Column[], rows: Row[], onRow?: (r: Row) => void, label?: string): VNode<any> {
  const cell = (v: ComponentChildren) => (typeof v === "object" && v !== null ? v : text(v));
  return h("div", { class: "table-wrap" }, [
    h("table", { "aria-label": label }, [
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          cols.map(([c]) => h("th", { scope: "col" }, c)),
        ),
      ),
      h(
        "tbody",
        null,
        rows.map((r) =>
          h(
            "tr",
            null,
            cols.map(([c, f], i) =>
              h(
                "td",
                { "data-col": c },
                i === 0 && onRow ? h("button", { type: "button", class: "link", onClick: () => onRow(r) }, cell(f(r))) : cell(f(r)),
              ),
            ),
          ),
        ),
      ),
    ]),
  ]);
}

/** The loading or error state of a load, or null once it has data. */
export function status(s: Pick<Loaded, "data" | "error">): VNode<any> | null {
  if (s.error) return h("p", { role: "alert", class: "error" }, s.error);
  if (!s.data) return h("p", { "aria-busy": "true", class: "loading" }, "Loading…");
  return null;
}

/** A definition list of label → value; each value carries data-field for tests and screen readers' context. */
export function fields(pairs: [string, ComponentChildren][]): VNode<any> {
  return h(
    "dl",
    { class: "fields" },
    pairs.flatMap(([k, v]) => [h("dt", null, k), h("dd", { "data-field": k }, typeof v === "object" && v !== null ? v : text(v))]),
  );
}

export function empty(message: string): VNode<any> {
  return h("p", { class: "empty" }, message);
}

/** The page's heading and body in a labelled region. */
export function page(title: string, children: ComponentChildren, actions?: ComponentChildren): VNode<any> {
  return h("section", { "aria-labelledby": "page-title" }, [
    h("header", { class: "page-head" }, [h("h2", { id: "page-title" }, title), actions ?? null]),
    children,
  ]);
}

/** Why the page offers no changes: the scope the signed-in key lacks and what it would allow. */
export function readOnlyNote(scope: string, what: string): VNode<any> {
  return h("p", { class: "note", role: "note" }, `Read-only: your key lacks the ${scope} scope, so it cannot ${what}.`);
}
