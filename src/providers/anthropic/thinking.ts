// reasoning_effort → Anthropic extended thinking. Models from Claude 4.6 on think adaptively
// (`thinking: {type: "adaptive"}` with `output_config.effort`; Opus 4.7 and Mythos take nothing else, and
// `enabled` is deprecated on the 4.6 models); older ones take `thinking: {type: "enabled", budget_tokens}`,
// with the budgets Google uses for the same efforts (none/minimal: off, low 1,024, medium 8,192, high
// 24,576), so an effort means the same thinking on Gemini and Claude. Anthropic counts the budget inside max_tokens and
// wants it below max_tokens: a client's max_tokens is for the answer, so the budget is added on top (up
// to the route's output limit). Thinking also constrains the sampling fields, which are dropped with a
// warning rather than have the request refused: temperature must be 1, top_p at least 0.95, and a forced
// tool choice is not allowed (then the effort is what gives way: the caller's tool choice is explicit).
// A client that gave an exact budget (a Messages client's budget_tokens, in the request's hints) gets
// that budget on the budget-taking models, within the same limits.
import { HINTS, type ChatRequest, type Warning } from "../types";
import type { AnthropicTurn } from "./messages";
import { loopLacksThinking } from "./reasoning-blocks";

/** Anthropic's smallest thinking budget. */
const MIN_BUDGET = 1_024;
const BUDGETS: Readonly<Record<string, number>> = { none: 0, minimal: 0, low: 1_024, medium: 8_192, high: 24_576, xhigh: 32_768 };

/** The effort each budget corresponds to, for the table in docs/contract.md. */
export const THINKING_BUDGETS = BUDGETS;

const warn = (code: string, message: string): Warning => ({ type: "unsupported_parameter", code, message });

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

/**
 * The answer's share of the output. A client that gave an exact budget speaks Anthropic, whose max_tokens
 * includes the budget: its max_tokens is then sent as it is (the budget taken back out before it is added).
 */
function answerTokens(req: ChatRequest, exact: number | undefined): number | undefined {
  const asked = req.max_completion_tokens ?? req.max_tokens ?? undefined;
  if (asked === undefined || exact === undefined || asked <= exact) return asked;
  return asked - exact;
}

/** What the request's route and conversation decide about thinking. */
export interface ThinkingRoute {
  routeMaxOutput: number;
  modelId: string;
  /** The converted turns: a tool-use loop whose assistant turns carry no thinking rules thinking out. */
  turns: readonly AnthropicTurn[];
}

/** The effort a budget is nearest to (the table's), for an adaptive model given only a budget. */
function effortOfBudget(budget: number): string {
  let best = "low";
  for (const [effort, tokens] of Object.entries(BUDGETS))
    if (tokens > 0 && Math.abs(tokens - budget) < Math.abs((BUDGETS[best] as number) - budget)) best = effort;
  return best;
}

/**
 * Applies `req.reasoning_effort` (or the client's exact budget, `req[HINTS].thinkingBudget`) to the
 * Anthropic body (thinking, max_tokens; sampling fields it rules out removed), or explains with a warning
 * why it could not.
 */
export function applyThinking(body: Record<string, unknown>, req: ChatRequest, route: ThinkingRoute, warnings: Warning[]): void {
  const hinted = req[HINTS]?.thinkingBudget;
  const exact = typeof hinted === "number" && hinted > 0 ? hinted : undefined;
  const effort = typeof req.reasoning_effort === "string" ? req.reasoning_effort : exact !== undefined ? effortOfBudget(exact) : undefined;
  if (effort === undefined) return;
  const table = BUDGETS[effort];
  if (table === undefined) {
    warnings.push(
      warn(
        "reasoning_effort",
        `reasoning_effort "${effort}" has no Anthropic thinking budget (known: ${Object.keys(BUDGETS).join(", ")}); it was dropped.`,
      ),
    );
    return;
  }
  if (table === 0) return; // Anthropic thinks only when asked to.
  const adaptive = thinksAdaptively(route.modelId);
  const wanted = exact !== undefined && !adaptive ? exact : table;
  const forced = body.tool_choice as { type?: string } | undefined;
  if (forced?.type === "any" || forced?.type === "tool") {
    warnings.push(warn("reasoning_effort", "Anthropic cannot think while a tool choice forces a tool; reasoning_effort was dropped."));
    return;
  }
  const { routeMaxOutput } = route;
  const answer = answerTokens(req, exact !== undefined && !adaptive ? exact : undefined);
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
  if (loopLacksThinking(route.turns)) {
    warnings.push(
      warn(
        "reasoning_effort",
        "The tool calls this request continues carry no Anthropic thinking (they came from another provider or without their reasoning), and Anthropic refuses thinking then; this request was sent without thinking.",
      ),
    );
    return;
  }
  body.max_tokens = maxTokens;
  if (adaptive) {
    body.thinking = { type: "adaptive" };
    body.output_config = { ...(body.output_config as object | undefined), effort: adaptiveEffort(effort, route.modelId) };
  } else body.thinking = { type: "enabled", budget_tokens: budget };
  dropSamplingConflicts(body, warnings);
}

/** The sampling fields thinking rules out, removed with a warning each. */
function dropSamplingConflicts(body: Record<string, unknown>, warnings: Warning[]): void {
  if (typeof body.temperature === "number" && body.temperature !== 1) {
    delete body.temperature;
    warnings.push(warn("temperature", "Anthropic requires temperature 1 while thinking; temperature was dropped."));
  }
  if (typeof body.top_p === "number" && body.top_p < 0.95) {
    delete body.top_p;
    warnings.push(warn("top_p", "Anthropic requires top_p of at least 0.95 while thinking; top_p was dropped."));
  }
}
