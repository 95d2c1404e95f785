// Pass-through fields that would change a call's price (issue 52 item 5). The catalog prices a route
// at its standard tier only, so on a platform-key call a field that buys a dearer tier or a tool the
// provider bills per use is dropped with an `unsupported_parameter` warning, from the body and from
// `extensions` alike: the gateway never runs work dearer than it charges. BYOK calls keep them (the
// workspace pays the provider directly).
import { isRecord } from "../providers/content-parts";
import type { ChatRequest, Warning } from "../providers/types";

/** service_tier values that ask for the standard price (omitting the field is the provider's default). */
const STANDARD_TIERS = new Set<unknown>(["default", "standard_only"]);

/** Fields that are dropped whatever their value: OpenAI's chat web search is billed per call. */
const ALWAYS_PRICED = ["web_search_options"];

const dropped = (code: string, why: string): Warning => ({
  type: "unsupported_parameter",
  code,
  message: `"${code}" ${why} and was dropped: platform-key calls are charged at the standard price only.`,
});

/** A tool the model calls and the client runs (OpenAI function/custom, Anthropic custom, Gemini declarations). */
function clientTool(t: unknown): boolean {
  if (!isRecord(t)) return false;
  // A built-in tool the client itself executes (Codex's tool_search, `execution: "client"`) costs the provider nothing.
  if (t.type === "function" || t.type === "custom" || t.execution === "client") return true;
  return (
    t.type === undefined && (t.input_schema !== undefined || t.functionDeclarations !== undefined || t.function_declarations !== undefined)
  );
}

/** Removes the priced fields of one object (the body or an extension) in a copy; null when it has none. */
function strip(fields: Record<string, unknown>, warnings: Warning[]): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  const copy = () => (out ??= { ...fields });
  if (fields.service_tier !== undefined && fields.service_tier !== null && !STANDARD_TIERS.has(fields.service_tier)) {
    delete copy().service_tier;
    warnings.push(dropped("service_tier", `asks for the ${JSON.stringify(fields.service_tier)} tier, which the catalog does not price,`));
  }
  for (const f of ALWAYS_PRICED) {
    if (fields[f] === undefined) continue;
    delete copy()[f];
    warnings.push(dropped(f, "is billed by the provider per call"));
  }
  if (Array.isArray(fields.tools) && !fields.tools.every(clientTool)) {
    const kept = fields.tools.filter(clientTool);
    // An empty list is refused by some providers: no tools left means no field.
    if (kept.length > 0) copy().tools = kept;
    else delete copy().tools;
    warnings.push(dropped("tools", "holds provider-run tools (billed by the provider per call)"));
  }
  return out;
}

export interface Unpriced {
  request: ChatRequest;
  extensions: Record<string, unknown> | undefined;
  warnings: Warning[];
}

/** The request and the serving provider's extensions without priced fields; null when there are none (the usual call). */
export function withoutPricedFields(req: ChatRequest, extensions: Record<string, unknown> | undefined): Unpriced | null {
  const warnings: Warning[] = [];
  const body = strip(req, warnings);
  const ext = extensions === undefined ? null : strip(extensions, warnings);
  if (!body && !ext) return null;
  return { request: (body as ChatRequest | null) ?? req, extensions: ext ?? extensions, warnings };
}
