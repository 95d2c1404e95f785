// reasoning_effort → Anthropic extended thinking. Models from Claude 4.6 on think adaptively
// (`thinking: {type: "adaptive"}` with `output_config.effort`; Opus 4.7 and Mythos take nothing else, and
// `enabled` is deprecated on the 4.6 models); older ones take `thinking: {type: "enabled", budget_tokens}`,
// with the budgets Google uses for the same efforts (none/minimal: off, low 1,024, medium 8,192, high
// 24,576), so an effort means the same thinking on Gemini and Claude. Anthropic counts the budget inside max_tokens and
// wants it below max_tokens: a client's max_tokens is for the answer, so the budget is added on top (up
// to the route's output limit). Thinking also constrains the sampling fields, which are dropped with a
// warning rather than have the request refused: temperature must be 1, top_p at least 0.95, and a forced
// tool choice is not allowed (then the effort is what gives way: the caller's tool choice is explicit).
import type { ChatRequest, Warning } from "../types";

/** Anthropic's smallest thinking budget. */
const MIN_BUDGET = 1_024;
const BUDGETS: Readonly<Record<string, number>> = { none: 0, minimal: 0, low: 1_024, medium: 8_192, high: 24_576, xhigh: 32_768 };

/** The effort each budget corresponds to, for the table in docs/api-choices.md. */
export const THINKING_BUDGETS = BUDGETS;

const warn = (code: string, message: string): Warning => ({ type: "unsupported_parameter", code, message });

/**
 * Applies `req.reasoning_effort` to the Anthropic body (thinking, max_tokens; sampling fields it rules out
 * removed), or explains with a warning why it could not.
 */
/** Claude 4.6 and later (and Mythos) think adaptively; the model ID says which generation a route serves. */
export function thinksAdaptively(modelId: string): boolean {
  // `4-20250514` is Claude 4's date, not a minor version: a minor version is one or two digits, then no more.
  return /mythos|claude-(opus|sonnet)-4-([6-9]|[1-9]\d)(?!\d)|claude-(opus|sonnet|haiku)-([5-9]|[1-9]\d)(?!\d)/.test(modelId);
}

/** The adaptive `output_config.effort` for an OpenAI-style effort (`max` is Opus's only). */
function adaptiveEffort(effort: string, modelId: string): string {
  if (effort === "xhigh") return /opus|mythos/.test(modelId) ? "max" : "high";
  return effort;
}

export function applyThinking(
  body: Record<string, unknown>,
  req: ChatRequest,
  routeMaxOutput: number,
  warnings: Warning[],
  modelId = "",
): void {
  const effort = req.reasoning_effort;
  if (typeof effort !== "string") return;
  const wanted = BUDGETS[effort];
  if (wanted === undefined) {
    warnings.push(
      warn(
        "reasoning_effort",
        `reasoning_effort "${effort}" has no Anthropic thinking budget (known: ${Object.keys(BUDGETS).join(", ")}); it was dropped.`,
      ),
    );
    return;
  }
  if (wanted === 0) return; // Anthropic thinks only when asked to.
  const forced = body.tool_choice as { type?: string } | undefined;
  if (forced?.type === "any" || forced?.type === "tool") {
    warnings.push(warn("reasoning_effort", "Anthropic cannot think while a tool choice forces a tool; reasoning_effort was dropped."));
    return;
  }
  const answer = req.max_completion_tokens ?? req.max_tokens;
  const maxTokens = answer === undefined || answer === null ? routeMaxOutput : Math.min(routeMaxOutput, answer + wanted);
  // The answer keeps its room (what the client asked for, else half the route's limit) unless that would
  // leave less than the smallest budget; then the budget is the smallest one.
  const reserve = Math.min(answer ?? Math.floor(routeMaxOutput / 2), maxTokens - 1);
  const budget = Math.max(Math.min(wanted, maxTokens - reserve), Math.min(MIN_BUDGET, maxTokens - 1));
  if (budget < MIN_BUDGET) {
    warnings.push(
      warn(
        "reasoning_effort",
        `The route's output limit (${routeMaxOutput} tokens) leaves no room for a thinking budget; reasoning_effort was dropped.`,
      ),
    );
    return;
  }
  body.max_tokens = maxTokens;
  if (thinksAdaptively(modelId)) {
    body.thinking = { type: "adaptive" };
    body.output_config = { ...(body.output_config as object | undefined), effort: adaptiveEffort(effort, modelId) };
  } else body.thinking = { type: "enabled", budget_tokens: budget };
  if (typeof body.temperature === "number" && body.temperature !== 1) {
    delete body.temperature;
    warnings.push(warn("temperature", "Anthropic requires temperature 1 while thinking; temperature was dropped."));
  }
  if (typeof body.top_p === "number" && body.top_p < 0.95) {
    delete body.top_p;
    warnings.push(warn("top_p", "Anthropic requires top_p of at least 0.95 while thinking; top_p was dropped."));
  }
}
