// Turning what an operator types into what the budgets API takes: `limit` is a number of USD that the
// gateway stores as whole microdollars, so the typed decimal is checked to fit that exactly.
import { ApiFailure } from "../lib/api";

const DECIMAL = /^(-?)(\d*)(?:\.(\d*))?$/;

/**
 * The `limit` to send for what was typed: a number of USD when it is a plain decimal with at most six
 * places; the text itself otherwise, so the API names what is wrong; undefined when empty (the API says
 * it is required). More than six places would be rounded by the gateway, so that is refused here.
 */
export function limitValue(typed: string): number | string | undefined {
  const s = typed.trim().replace(/^\$/, "");
  if (s === "") return undefined;
  const m = DECIMAL.exec(s);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return s;
  const frac = m[3] ?? "";
  if (frac.length > 6) throw new ApiFailure("Enter at most 6 decimal places: limits are whole microdollars.", 0, "limit", null);
  const micro = Number(m[2] || "0") * 1_000_000 + Number(frac.padEnd(6, "0"));
  return (m[1] === "-" ? -micro : micro) / 1_000_000;
}

/** USD from the API as whole microdollars (the spend bar's unit). */
export const toMicro = (usd: unknown) => Math.round(Number(usd ?? 0) * 1_000_000);

/** An Idempotency-Key (the API takes 1–255 of A-Z a-z 0-9 _ -); getRandomValues works outside secure contexts too. */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
