// The API's ISO 8601 instants (always UTC) as people read them: in UTC, or in the browser's local time.
import { h, type VNode } from "preact";
import { text } from "./ui";

/** "2026-12-04 02:11 UTC". */
export function utc(iso: unknown): string {
  const s = text(iso);
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) ? `${s.slice(0, 10)} ${s.slice(11, 16)} UTC` : s;
}

/** "2026-12-04T09:30" in local time, the value a datetime-local input takes. */
export function localInput(iso: unknown): string {
  if (typeof iso !== "string" || !iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A datetime-local value (local time) as the API's ISO 8601; empty stays empty. */
export const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : "");

/** A date-time in local time, its exact ISO value kept in the element. */
export function when(iso: unknown, none = "never"): VNode<any> {
  if (typeof iso !== "string" || !iso) return h("span", { class: "none" }, none);
  return h("time", { dateTime: iso, title: iso }, localInput(iso).replace("T", " "));
}
