// Internal chat messages → Responses `instructions` + `input` items.
//   system / developer  → instructions (joined; the Responses API's place for them)
//   user                → message item of input_text / input_image / input_file parts
//   assistant           → its reasoning items (reasoning.ts), a message item of output_text (the API
//                         rejects input_text from the assistant), then one function_call item per tool call
//   tool                → function_call_output item, matched by call_id
import type { ChatMessage, ContentPart, Warning } from "../types";
import { contentParts, contentText, isImagePart, isRecord, isTextPart } from "../content-parts";
import { reasoningInputItems, type ResponsesInputItem } from "./reasoning";

export interface ConvertedInput {
  instructions: string | undefined;
  input: ResponsesInputItem[];
}

export function convertInput(messages: ChatMessage[], warnings: Warning[]): ConvertedInput {
  const instructions: string[] = [];
  const input: ResponsesInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
      case "developer": {
        const text = contentText(message.content);
        if (text !== "") instructions.push(text);
        break;
      }
      case "user": {
        const content = contentParts(message.content).flatMap((part) => userPart(part, warnings));
        if (content.length > 0) input.push({ type: "message", role: "user", content });
        break;
      }
      case "assistant":
        input.push(...assistantItems(message));
        break;
      case "tool":
        input.push({ type: "function_call_output", call_id: message.tool_call_id ?? "", output: toolOutput(message, warnings) });
        break;
    }
  }
  return { instructions: instructions.length > 0 ? instructions.join("\n\n") : undefined, input };
}

function assistantItems(message: ChatMessage): ResponsesInputItem[] {
  const items = reasoningInputItems(message.reasoning_details);
  const text = contentText(message.content);
  if (text !== "") items.push({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
  for (const call of message.tool_calls ?? []) {
    items.push({ type: "function_call", call_id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
  return items;
}

/** A tool result stays a plain string when it is one; parts become the output's input_* list. */
function toolOutput(message: ChatMessage, warnings: Warning[]): string | ResponsesInputItem[] {
  if (typeof message.content === "string" || message.content === null) return message.content ?? "";
  const parts = contentParts(message.content);
  if (parts.every(isTextPart)) return contentText(message.content);
  return parts.flatMap((part) => userPart(part, warnings));
}

function userPart(part: ContentPart, warnings: Warning[]): ResponsesInputItem[] {
  if (isTextPart(part)) return part.text === "" ? [] : [{ type: "input_text", text: part.text }];
  if (isImagePart(part)) return [{ type: "input_image", image_url: part.image_url.url, detail: part.image_url.detail ?? "auto" }];
  const file = (part as Record<string, unknown>).file;
  if (part.type === "file" && isRecord(file)) {
    const out: ResponsesInputItem = { type: "input_file" };
    for (const key of ["file_data", "file_id", "filename"] as const) if (typeof file[key] === "string") out[key] = file[key];
    return [out];
  }
  warnings.push({
    type: "unsupported_parameter",
    code: `content.${part.type}`,
    message: `Content parts of type "${part.type}" are not supported by the Responses API and were dropped.`,
  });
  return [];
}
