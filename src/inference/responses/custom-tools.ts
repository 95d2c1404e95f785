// Custom (free-form) tools ↔ chat function tools. A custom tool's input is one string (Codex's
// apply_patch sends a patch); every chat wire can carry that as a function whose only parameter is the
// string `input`, and the call comes back to the client as a custom_tool_call with that string.
import type { ToolDef, Warning } from "../../providers/types";
import type { ResponsesRequest } from "./schema";

export type CustomToolInput = Extract<NonNullable<ResponsesRequest["tools"]>[number], { type: "custom" }>;

/** The function a custom tool is sent as. A grammar cannot be enforced by a chat wire: it is described to the model, with a warning. */
export function customToolToFunction(tool: CustomToolInput, where: string, warnings: Warning[]): ToolDef {
  let description = tool.description ?? "";
  const format = tool.format;
  if (format && format.type !== "text") {
    warnings.push({
      type: "unsupported_parameter",
      code: `${where}.format`,
      message: `The ${format.type} format of custom tool '${tool.name}' cannot be enforced on this route; it is given to the model in the tool's description.`,
    });
    if (format.definition)
      description += `${description ? "\n\n" : ""}The input must follow this ${format.syntax ?? format.type} grammar:\n${format.definition}`;
  }
  const fn: ToolDef["function"] = {
    name: tool.name,
    parameters: {
      type: "object",
      properties: { input: { type: "string", description: "The tool's free-form input." } },
      required: ["input"],
      additionalProperties: false,
    },
  };
  if (description !== "") fn.description = description;
  return { type: "function", function: fn };
}

/** A custom tool call's input as the function call's arguments. */
export const customArguments = (input: string): string => JSON.stringify({ input });

/** The input of a function call made to a custom tool; the raw arguments when they are not `{"input": "…"}`. */
export function customInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === "object" && parsed !== null && typeof (parsed as { input?: unknown }).input === "string") {
      return (parsed as { input: string }).input;
    }
  } catch {
    // Not JSON: the model wrote the input itself.
  }
  return args;
}

const OPENING = /^\s*\{\s*"input"\s*:\s*"/;

/**
 * The part of the input string that arguments streamed so far already decode to, for streaming the
 * input as it comes; null when the arguments do not start as `{"input": "`. An escape cut by the end of
 * a fragment waits for the next one.
 */
export function partialInput(args: string): string | null {
  const open = OPENING.exec(args);
  if (!open) return null;
  const start = open[0].length;
  let i = start;
  while (i < args.length) {
    const ch = args[i];
    if (ch === '"') break;
    if (ch === "\\") {
      const width = args[i + 1] === "u" ? 6 : 2;
      if (i + width > args.length) break;
      i += width;
    } else i += 1;
  }
  let decoded: string;
  try {
    decoded = JSON.parse(`"${args.slice(start, i)}"`) as string;
  } catch {
    return null;
  }
  // Half of a surrogate pair waits for its other half.
  const last = decoded.charCodeAt(decoded.length - 1);
  return last >= 0xd800 && last <= 0xdbff && args[i] !== '"' ? decoded.slice(0, -1) : decoded;
}
