// The client's reasoning ask → Gemini's thinkingConfig. Gemini 2.5 takes a token budget (the budgets
// Google's own OpenAI-compatible endpoint uses per effort; an Anthropic budget_tokens exactly, within
// the model's range); Gemini 3 takes a thinking level instead (a budget there is only tolerated for
// compatibility) and cannot turn thinking off. includeThoughts is set whenever the client asked for
// reasoning, so that the thought summaries come back to be shown and carried.
import type { ChatRequest, Warning } from "../types";
import { HINTS } from "../types";

export const THINKING_BUDGETS: Record<string, number> = { none: 0, minimal: 0, low: 1024, medium: 8192, high: 24576, xhigh: 32768 };

type Level = "minimal" | "low" | "medium" | "high";

const LEVELS: Record<string, Level> = { none: "minimal", minimal: "minimal", low: "low", medium: "medium", high: "high", xhigh: "high" };

/** Gemini 3 models whose levels differ from the family's low/medium/high (per Google's thinking guide). */
const LEVEL_SETS: [prefix: string, levels: Level[]][] = [
  ["gemini-3-pro", ["low", "high"]],
  ["gemini-3-flash", ["minimal", "low", "medium", "high"]],
  ["gemini-3.1-flash-lite", ["minimal", "low", "medium", "high"]],
];
const DEFAULT_LEVELS: Level[] = ["low", "medium", "high"];

/** A 2.5 model's budget range: Pro cannot turn thinking off; Flash-Lite thinks with at least 512 tokens. */
function budgetRange(model: string): { min: number; max: number; canDisable: boolean } {
  if (model.includes("pro")) return { min: 128, max: 32768, canDisable: false };
  if (model.includes("flash-lite")) return { min: 512, max: 24576, canDisable: true };
  return { min: 1, max: 24576, canDisable: true };
}

export function isGemini3(model: string): boolean {
  return model.startsWith("gemini-3");
}

/** generationConfig.thinkingConfig for this request on this model, or undefined when the client asked nothing. */
export function thinkingConfigOf(req: ChatRequest, model: string, warnings: Warning[]): Record<string, unknown> | undefined {
  const effort = typeof req.reasoning_effort === "string" ? req.reasoning_effort : undefined;
  if (effort !== undefined && !(effort in THINKING_BUDGETS)) {
    warnings.push({
      type: "unsupported_parameter",
      code: "reasoning_effort",
      message: `reasoning_effort "${effort}" has no Gemini thinking setting (known: ${Object.keys(THINKING_BUDGETS).join(", ")}); it was dropped.`,
    });
  }
  const known = effort !== undefined && effort in THINKING_BUDGETS ? effort : undefined;
  const hinted = req[HINTS]?.thinkingBudget;
  const budget = typeof hinted === "number" && hinted >= 0 ? hinted : undefined;
  const wantsThoughts =
    (known !== undefined && known !== "none" && known !== "minimal") || (budget ?? 0) > 0 || !!req[HINTS]?.reasoningSummary;
  const config: Record<string, unknown> = {};
  if (isGemini3(model)) {
    const level = budget !== undefined ? levelOfBudget(budget) : known !== undefined ? LEVELS[known] : undefined;
    if (level !== undefined) config.thinkingLevel = supportedLevel(model, level);
    if (known === "none") warnOff(warnings, model, known, `thinkingLevel "${String(config.thinkingLevel)}"`);
  } else if (budget !== undefined || known !== undefined) {
    config.thinkingBudget = budgetFor(model, budget ?? THINKING_BUDGETS[known!]!, budget !== undefined ? null : known!, warnings);
  }
  if (wantsThoughts) config.includeThoughts = true;
  return Object.keys(config).length > 0 ? config : undefined;
}

/** The Anthropic budget's nearest level, on the effort table's budgets. */
function levelOfBudget(budget: number): Level {
  if (budget === 0) return "minimal";
  if (budget <= THINKING_BUDGETS.low!) return "low";
  if (budget <= THINKING_BUDGETS.medium!) return "medium";
  return "high";
}

/** A level the model takes: minimal rounds up to low, medium up to high, where the model lacks them. */
function supportedLevel(model: string, level: Level): Level {
  const levels = LEVEL_SETS.find(([prefix]) => model.startsWith(prefix))?.[1] ?? DEFAULT_LEVELS;
  if (levels.includes(level)) return level;
  return level === "minimal" ? "low" : "high";
}

/** `effort` is null for the client's exact budget (a clamp is then worth a warning), else the effort it came from. */
function budgetFor(model: string, wanted: number, effort: string | null, warnings: Warning[]): number {
  const range = budgetRange(model);
  if (wanted === 0) {
    if (range.canDisable) return 0;
    warnOff(warnings, model, effort ?? "none", `a ${range.min}-token budget`);
    return range.min;
  }
  const budget = Math.min(range.max, Math.max(range.min, wanted));
  if (effort === null && budget !== wanted) {
    warnings.push({
      type: "unsupported_parameter",
      code: "thinking.budget_tokens",
      message: `${model} takes thinking budgets from ${range.min} to ${range.max} tokens; ${wanted} was sent as ${budget}.`,
    });
  }
  return budget;
}

function warnOff(warnings: Warning[], model: string, effort: string, sent: string): void {
  warnings.push({
    type: "unsupported_parameter",
    code: "reasoning_effort",
    message: `${model} cannot turn thinking off; reasoning_effort "${effort}" was sent as ${sent}.`,
  });
}
