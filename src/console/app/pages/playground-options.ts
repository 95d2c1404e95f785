// The Playground's request options: the model and extra models (gateway.models, pooled or in fallback
// order), the request's routing options (gateway.routing: only fields the chat schema takes), the system
// prompt, temperature and max tokens. Each control is named after the API field, so an error whose
// `param` names it is shown beside it.
import { h, type VNode } from "preact";
import type { ApiFailure, Row } from "../lib/api";
import { field } from "../lib/form";

/** gateway.routing.optimize's values (src/inference/gateway-schema.ts OPTIMIZE; the test checks they match). */
export const OPTIMIZE = ["cost", "cost-focus", "ttft", "ttft-focus", "tps", "tps-focus", "balanced"];

export type Opts = Record<string, string | string[]>;

export const initialOpts = (model: string): Opts => ({
  model,
  "gateway.models": [],
  "gateway.routing.mode": "",
  "gateway.routing.optimize": "",
  "gateway.routing.max_cost_per_1m": "",
  "gateway.routing.max_ttft_ms": "",
  "gateway.routing.ttft_percentile": "",
  "gateway.routing.min_throughput_tps": "",
  "gateway.routing.min_success_rate": "",
  "gateway.routing.require_parameters": "",
  system: "",
  temperature: "",
  max_tokens: "",
});

const CHOICES = ["mode", "optimize", "ttft_percentile"];
const NUMBERS = ["max_cost_per_1m", "max_ttft_ms", "min_throughput_tps", "min_success_rate"];

/** A number as a number; anything else as typed, so the API's validation names the field. */
const num = (v: string): number | string => (Number.isFinite(Number(v)) ? Number(v) : v);
const str = (o: Opts, name: string) => String(o[name] ?? "").trim();

/** The extra models chosen, without the main one (it leads gateway.models). */
export const extraModels = (o: Opts) => ((o["gateway.models"] as string[]) ?? []).filter((m) => m !== o.model);

export function requestBody(o: Opts, messages: Row[]): Row {
  const body: Row = {};
  const system = str(o, "system");
  body.messages = system ? [{ role: "system", content: system }, ...messages] : messages;
  const gateway: Row = {};
  const extra = extraModels(o);
  if (extra.length > 0) gateway.models = [o.model, ...extra];
  else body.model = o.model;
  const routing: Row = {};
  for (const k of CHOICES) if (str(o, `gateway.routing.${k}`)) routing[k] = str(o, `gateway.routing.${k}`);
  for (const k of NUMBERS) if (str(o, `gateway.routing.${k}`)) routing[k] = num(str(o, `gateway.routing.${k}`));
  if (o["gateway.routing.require_parameters"] === "on") routing.require_parameters = true;
  if (Object.keys(routing).length > 0) gateway.routing = routing;
  if (Object.keys(gateway).length > 0) body.gateway = gateway;
  if (str(o, "temperature")) body.temperature = num(str(o, "temperature"));
  if (str(o, "max_tokens")) body.max_tokens = num(str(o, "max_tokens"));
  return body;
}

/** The first of gateway.models is the main model's control; the others the extra models'. */
export function ownParam(param: string | null, o: Opts): string | null {
  if (param?.startsWith("gateway.models[0]") && extraModels(o).length > 0) return "model";
  if (param?.startsWith("messages[0]") && str(o, "system")) return "system";
  return param;
}

/** Reads a changed control into the options (delegated from the form, so every field stays a plain field()). */
export function readControl(e: Event, o: Opts): Opts | null {
  const el = e.target as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  if (!el.name || !(el.name in o)) return null;
  if (el instanceof HTMLSelectElement && el.multiple) return { ...o, [el.name]: Array.from(el.selectedOptions).map((x) => x.value) };
  if (el instanceof HTMLInputElement && el.type === "checkbox") return { ...o, [el.name]: el.checked ? "on" : "" };
  return { ...o, [el.name]: el.value };
}

const choice = (empty: string, values: string[]): [string, string][] => [["", empty], ...values.map((v): [string, string] => [v, v])];

export function optionsForm(o: Opts, models: string[], failure: ApiFailure | null, onChange: (o: Opts) => void): VNode<any> {
  const on = (e: Event) => {
    const next = readControl(e, o);
    if (next) onChange(next);
  };
  const f = (p: Omit<Parameters<typeof field>[0], "failure" | "value">) => field({ ...p, failure, value: String(o[p.name] ?? "") });
  const modelOptions = models.map((m): [string, string] => [m, m]);
  // A disclosure, so on a phone the options fold away above the conversation.
  return h("details", { class: "pg-options-wrap", open: true }, [
    h("summary", null, "Request options"),
    h(
      "form",
      { class: "pg-options", "aria-label": "Request options", onInput: on, onChange: on, onSubmit: (e: Event) => e.preventDefault() },
      [
        h("fieldset", null, [
          h("legend", null, "Models"),
          f({ label: "Model", name: "model", type: "select", options: modelOptions }),
          field({
            label: "More models (pool or fallback)",
            name: "gateway.models",
            type: "select",
            multiple: true,
            failure,
            options: modelOptions,
            hint: "Optional, several with Ctrl or Cmd. Sent as gateway.models, the model above first.",
          }),
          f({
            label: "Mode",
            name: "gateway.routing.mode",
            type: "select",
            options: choice("workspace default (pool)", ["pool", "fallback"]),
          }),
        ]),
        h("fieldset", null, [
          h("legend", null, "Routing"),
          f({ label: "Optimize", name: "gateway.routing.optimize", type: "select", options: choice("workspace default", OPTIMIZE) }),
          f({
            label: "Max price (USD per 1M tokens)",
            name: "gateway.routing.max_cost_per_1m",
            type: "number",
            min: "0",
            step: "any",
            hint: "Blended (input + output) / 2.",
          }),
          f({ label: "Max TTFT (ms)", name: "gateway.routing.max_ttft_ms", type: "number", min: "0", step: "1" }),
          f({
            label: "TTFT percentile",
            name: "gateway.routing.ttft_percentile",
            type: "select",
            options: choice("default (p50)", ["p50", "p95"]),
          }),
          f({ label: "Min throughput (tokens/s)", name: "gateway.routing.min_throughput_tps", type: "number", min: "0", step: "any" }),
          f({ label: "Min success rate (0 to 1)", name: "gateway.routing.min_success_rate", type: "number", min: "0", step: "0.01" }),
          field({
            label: "Require every parameter",
            name: "gateway.routing.require_parameters",
            type: "checkbox",
            failure,
            checked: o["gateway.routing.require_parameters"] === "on",
          }),
        ]),
        h("fieldset", null, [
          h("legend", null, "Generation"),
          f({ label: "System prompt", name: "system", type: "textarea" }),
          f({ label: "Temperature", name: "temperature", type: "number", min: "0", step: "0.1" }),
          f({ label: "Max tokens", name: "max_tokens", type: "number", min: "1", step: "1" }),
        ]),
      ],
    ),
  ]);
}

/** Shows the control a refusal names: its options opened if folded, then focused. */
export function focusControl(name: string): void {
  const el = document.querySelector<HTMLElement>(`.pg-options [name="${CSS.escape(name)}"]`);
  if (!el) return;
  el.closest("details")?.setAttribute("open", "");
  el.focus();
}
