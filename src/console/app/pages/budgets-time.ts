// The API's ISO 8601 instants (always UTC) shortened for reading: "2026-12-04 02:11 UTC".
import { text } from "../lib/ui";

export function utc(iso: unknown): string {
  const s = text(iso);
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) ? `${s.slice(0, 10)} ${s.slice(11, 16)} UTC` : s;
}
