// The routing-defaults fields as data: how each shows in the form, how a typed value becomes the raw JSON
// sent (unchecked, so the API's validation and its message are the only ones), and which fields changed.
import type { Row } from "../lib/api";
import { OPTIMIZE_STRATEGIES, PERCENTILES, type EffectiveRoutingDefaults } from "../../../routing/types";

export type FieldName = keyof EffectiveRoutingDefaults;
type Kind = "select" | "checkbox" | "number" | "list";

export interface FieldDef {
  name: FieldName;
  label: string;
  kind: Kind;
  hint: string;
  options?: [string, string][];
  step?: string;
}

const OPTIMIZE_LABELS: Record<(typeof OPTIMIZE_STRATEGIES)[number], string> = {
  cost: "cost: cheapest route only",
  "cost-focus": "cost-focus: mostly cost (70 %), some speed",
  ttft: "ttft: fastest first token only",
  "ttft-focus": "ttft-focus: mostly first-token speed (70 %)",
  tps: "tps: highest throughput only",
  "tps-focus": "tps-focus: mostly throughput (70 %)",
  balanced: "balanced: cost, TTFT and throughput equally",
};
const percentiles: [string, string][] = PERCENTILES.map((p) => [p, p === "p50" ? "p50 (median)" : "p95 (pessimistic)"]);

export const GROUPS: { legend: string; fields: FieldDef[] }[] = [
  {
    legend: "Ranking",
    fields: [
      {
        name: "optimize",
        label: "Optimize",
        kind: "select",
        hint: "How routes are ranked.",
        options: OPTIMIZE_STRATEGIES.map((o) => [o, OPTIMIZE_LABELS[o]]),
      },
      {
        name: "prefer",
        label: "Prefer providers",
        kind: "list",
        hint: "Provider IDs, comma-separated: favoured when close, never a filter.",
      },
      {
        name: "ttft_percentile",
        label: "TTFT percentile",
        kind: "select",
        hint: "Which TTFT estimate ceilings compare.",
        options: percentiles,
      },
      {
        name: "throughput_percentile",
        label: "Throughput percentile",
        kind: "select",
        hint: "Which throughput estimate min_throughput_tps compares.",
        options: percentiles,
      },
    ],
  },
  {
    legend: "Constraints",
    fields: [
      {
        name: "data_policy",
        label: "Data policy",
        kind: "select",
        hint: "The weakest provider data policy allowed.",
        options: [
          ["none", "none: any provider"],
          ["no_training", "no_training: providers that do not train on data"],
          ["zdr", "zdr: zero data retention only"],
        ],
      },
      { name: "providers", label: "Providers (allow-list)", kind: "list", hint: "Provider IDs, comma-separated; empty: every provider." },
      { name: "exclude_providers", label: "Exclude providers", kind: "list", hint: "Provider IDs, comma-separated." },
      { name: "min_throughput_tps", label: "Min throughput (tokens/s)", kind: "number", step: "any", hint: "Empty: no floor." },
      { name: "min_success_rate", label: "Min success rate (0 to 1)", kind: "number", step: "any", hint: "Empty: no floor." },
      { name: "only_byok", label: "Only BYOK keys", kind: "checkbox", hint: "Only routes paid with the workspace's own keys." },
      { name: "only_platform", label: "Only platform keys", kind: "checkbox", hint: "Only routes paid with the platform's keys." },
      {
        name: "require_parameters",
        label: "Require parameters",
        kind: "checkbox",
        hint: "Only routes that carry every parameter a request uses.",
      },
    ],
  },
  {
    legend: "Fallbacks",
    fields: [
      { name: "allow_fallbacks", label: "Allow fallbacks", kind: "checkbox", hint: "Try the next route when one fails." },
      { name: "max_fallback_attempts", label: "Max fallback attempts", kind: "number", step: "1", hint: "Empty: the built-in default." },
    ],
  },
];

export const ALL_FIELDS: FieldDef[] = GROUPS.flatMap((g) => g.fields);

/** What a control holds: text for inputs and selects, a boolean for checkboxes. */
export type Draft = Record<string, string | boolean>;

export function toDraft(data: Row): Draft {
  const d: Draft = {};
  for (const f of ALL_FIELDS) {
    const v = data[f.name];
    if (f.kind === "checkbox") d[f.name] = v === true;
    else if (f.kind === "list") d[f.name] = Array.isArray(v) ? v.join(", ") : "";
    else d[f.name] = v === null || v === undefined ? "" : String(v);
  }
  return d;
}

/** The JSON value sent for a control: empty numbers reset (null); anything else goes as typed for the API to judge. */
export function rawValue(f: FieldDef, v: string | boolean | undefined): unknown {
  if (f.kind === "checkbox") return v === true;
  const s = typeof v === "string" ? v.trim() : "";
  if (f.kind === "list") return s.split(/[\s,]+/).filter(Boolean);
  if (f.kind === "number") {
    if (s === "") return null;
    const n = Number(s);
    return Number.isFinite(n) ? n : s;
  }
  return s;
}

/** Only the fields whose value differs from what was loaded. */
export function changes(draft: Draft, loaded: Row): Record<string, unknown> {
  const base = toDraft(loaded);
  const out: Record<string, unknown> = {};
  for (const f of ALL_FIELDS) {
    const now = rawValue(f, draft[f.name]);
    if (JSON.stringify(now) !== JSON.stringify(rawValue(f, base[f.name]))) out[f.name] = now;
  }
  return out;
}

/** A field's value as read-only text. */
export function shown(f: FieldDef, data: Row): string {
  const v = data[f.name];
  if (f.kind === "checkbox") return v === true ? "yes" : "no";
  if (f.kind === "list") return Array.isArray(v) && v.length ? v.join(", ") : "none";
  if (v === null || v === undefined) return "not set";
  return f.options?.find(([o]) => o === v)?.[1] ?? String(v);
}
