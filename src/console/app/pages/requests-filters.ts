// The request log's filter form (every filter the list API takes; applying one puts it in the address)
// and the box that opens a request by its X-Request-ID.
import { h } from "preact";
import { useState } from "preact/hooks";
import { ApiFailure } from "../lib/api";
import { field, formError, values } from "../lib/form";
import { go } from "../lib/route";
import { FILTERS, queryAddress, REQUEST_ID, type ListQuery } from "./requests-query";

const DATE_HINT = "UTC date (YYYY-MM-DD) or ISO 8601 date-time";

export function FilterForm({ query, failure }: { query: ListQuery; failure: ApiFailure | null }) {
  const f = query.filters;
  const apply = (e: Event) => {
    e.preventDefault();
    const v = values(e.currentTarget as HTMLFormElement);
    const filters: ListQuery["filters"] = {};
    for (const name of FILTERS) {
      const s = String(v[name] ?? "").trim();
      if (s) filters[name] = s;
    }
    go("requests", queryAddress({ filters, offset: 0 }));
  };
  const text = (label: string, name: (typeof FILTERS)[number], more: { hint?: string; placeholder?: string } = {}) =>
    field({ label, name, failure, value: f[name] ?? "", ...more });
  const select = (label: string, name: (typeof FILTERS)[number], options: [string, string][]) =>
    field({ label, name, failure, type: "select", options, value: f[name] ?? "" });
  return h("form", { onSubmit: apply, "aria-label": "Filter requests", class: "form requests-filters", noValidate: true }, [
    text("From", "start_date", { hint: DATE_HINT, placeholder: "YYYY-MM-DD" }),
    text("To (inclusive day)", "end_date", { hint: DATE_HINT, placeholder: "YYYY-MM-DD" }),
    text("Model", "model", { hint: "as requested, or its canonical ID" }),
    text("Provider", "provider", { hint: "a provider ID" }),
    text("Trace ID", "trace_id", { hint: "gateway.metadata.trace_id" }),
    select("Success", "success", [
      ["", "Any"],
      ["true", "Succeeded"],
      ["false", "Failed"],
    ]),
    select("Key source", "api_key_source", [
      ["", "Any"],
      ["platform", "Platform"],
      ["byok", "BYOK"],
    ]),
    select("Attempts", "is_final_attempt", [
      ["", "Final attempts (one per call)"],
      ["false", "Earlier attempts (before a fallback)"],
    ]),
    formError(failure, [...FILTERS]),
    h("div", { class: "actions" }, [
      h("button", { type: "submit" }, "Apply filters"),
      // A reset, so text typed but not applied goes too (the fields keep typed values across re-renders).
      h("button", { type: "reset", onClick: () => go("requests") }, "Clear filters"),
    ]),
  ]);
}

/** Opens `#/requests/<X-Request-ID>`; an ID the gateway would never have kept is refused here. */
export function OpenById() {
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const open = (e: Event) => {
    e.preventDefault();
    const id = String(values(e.currentTarget as HTMLFormElement).request_id ?? "").trim();
    if (!REQUEST_ID.test(id)) {
      setFailure(new ApiFailure("An X-Request-ID is 1 to 128 letters, digits or . _ : -", 0, "request_id", null));
      return;
    }
    setFailure(null);
    go("requests", id);
  };
  return h("form", { onSubmit: open, "aria-label": "Open a request", class: "requests-open", noValidate: true }, [
    field({ label: "Open request ID", name: "request_id", failure, id: "open-request-id", placeholder: "X-Request-ID" }),
    h("button", { type: "submit" }, "Open"),
  ]);
}
