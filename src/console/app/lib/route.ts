// The console's address: `#/<page>[/<rest>]` (e.g. `#/requests/<X-Request-ID>`), so a page or a request
// can be linked and the back button works; the key never goes in it.
import { useEffect, useState } from "preact/hooks";

export interface Place {
  page: string;
  /** What follows the page's slug, decoded (a request ID), or null. */
  rest: string | null;
}

export function parse(hash: string): Place {
  const [page, ...rest] = hash.replace(/^#\/?/, "").split("/");
  return { page: page || "overview", rest: rest.length ? decodeURIComponent(rest.join("/")) : null };
}

export const href = (page: string, rest?: string) => `#/${page}${rest ? `/${encodeURIComponent(rest)}` : ""}`;

export function go(page: string, rest?: string): void {
  location.hash = href(page, rest);
}

export function usePlace(): Place {
  const [place, set] = useState(() => parse(location.hash));
  useEffect(() => {
    const on = () => set(parse(location.hash));
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return place;
}
