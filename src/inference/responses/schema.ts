// The /v1/responses request (OpenAI Responses API subset). Loose where OpenAI is loose: unknown
// fields are allowed and ignored. Items may omit `type` when they carry `role` and `content`
// (OpenAI's "easy input message", docs/contract.md "Inference and dialects"). `gateway` is validated by the pipeline.
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { firstFieldError, type FieldError } from "./validation-error";
import { statefulFieldError } from "./stateful";

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const InputText = Type.Object({ type: Type.Literal("input_text"), text: Type.String() });
export const InputImage = Type.Object({
  type: Type.Literal("input_image"),
  image_url: Type.Optional(Nullable(Type.String())),
  file_id: Type.Optional(Nullable(Type.String())),
  detail: Type.Optional(Type.String()),
});
export const InputFile = Type.Object({
  type: Type.Literal("input_file"),
  file_data: Type.Optional(Type.String()),
  file_id: Type.Optional(Nullable(Type.String())),
  file_url: Type.Optional(Type.String()),
  filename: Type.Optional(Type.String()),
});
// Earlier assistant output sent back as input (stateless multi-turn).
export const OutputText = Type.Object({ type: Type.Literal("output_text"), text: Type.String() });
export const Refusal = Type.Object({ type: Type.Literal("refusal"), refusal: Type.String() });

export const ContentPart = Type.Union([InputText, InputImage, InputFile, OutputText, Refusal]);

export const MessageItem = Type.Object({
  type: Type.Optional(Type.Literal("message")),
  role: Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("system"), Type.Literal("developer")]),
  content: Type.Union([Type.String(), Type.Array(ContentPart)]),
});
export const FunctionCallItem = Type.Object({
  type: Type.Literal("function_call"),
  call_id: Type.String(),
  name: Type.String(),
  arguments: Type.String(),
  id: Type.Optional(Type.String()),
});
// A tool's result: text, or input parts (only text is carried, to-chat.ts).
const ToolOutput = Type.Union([Type.String(), Type.Array(Type.Union([InputText, InputImage, InputFile]))]);
export const FunctionCallOutputItem = Type.Object({
  type: Type.Literal("function_call_output"),
  call_id: Type.String(),
  output: ToolOutput,
});
// Earlier outputs' reasoning, sent back: the provider's state for the turn (reasoning-items.ts).
export const ReasoningItem = Type.Object({
  type: Type.Literal("reasoning"),
  id: Type.Optional(Type.String()),
  summary: Type.Optional(Type.Array(Type.Object({ type: Type.Literal("summary_text"), text: Type.String() }))),
  content: Type.Optional(
    Nullable(Type.Array(Type.Object({ type: Type.Union([Type.Literal("reasoning_text"), Type.Literal("text")]), text: Type.String() }))),
  ),
  encrypted_content: Type.Optional(Nullable(Type.String())),
  status: Type.Optional(Type.String()),
});
// A custom (free-form) tool's call and its result, sent back (custom-tools.ts).
export const CustomToolCallItem = Type.Object({
  type: Type.Literal("custom_tool_call"),
  call_id: Type.String(),
  name: Type.String(),
  input: Type.String(),
  id: Type.Optional(Type.String()),
});
export const CustomToolCallOutputItem = Type.Object({
  type: Type.Literal("custom_tool_call_output"),
  call_id: Type.String(),
  output: ToolOutput,
});
// An item by id needs stored items: refused with a clear message (parseResponsesRequest).
export const ItemReference = Type.Object({ type: Type.Literal("item_reference"), id: Type.String() });

export const InputItem = Type.Union([
  MessageItem,
  FunctionCallItem,
  FunctionCallOutputItem,
  ReasoningItem,
  CustomToolCallItem,
  CustomToolCallOutputItem,
  ItemReference,
]);

export const FunctionTool = Type.Object({
  type: Type.Literal("function"),
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Nullable(Type.String())),
  parameters: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  strict: Type.Optional(Nullable(Type.Boolean())),
});
// A free-form tool (Codex's apply_patch): its input is one string, optionally under a grammar.
export const CustomTool = Type.Object({
  type: Type.Literal("custom"),
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Nullable(Type.String())),
  format: Type.Optional(
    Nullable(
      Type.Object({
        type: Type.String(),
        syntax: Type.Optional(Type.String()),
        definition: Type.Optional(Type.String()),
      }),
    ),
  ),
});
// Hosted tools (web_search, file_search, …) are accepted and dropped with a warning: no
// provider behind the chat model can run them.
export const HostedTool = Type.Object({
  type: Type.Intersect([Type.String(), Type.Not(Type.Union([Type.Literal("function"), Type.Literal("custom")]))]),
});

export const TextFormat = Type.Union([
  Type.Object({ type: Type.Literal("text") }),
  Type.Object({ type: Type.Literal("json_object") }),
  Type.Object({
    type: Type.Literal("json_schema"),
    name: Type.String({ minLength: 1 }),
    schema: Type.Record(Type.String(), Type.Unknown()),
    description: Type.Optional(Type.String()),
    strict: Type.Optional(Nullable(Type.Boolean())),
  }),
]);

export const ResponsesRequest = Type.Object({
  // Optional because `gateway.models[]` may replace it; the pipeline checks that one is given.
  model: Type.Optional(Type.String({ minLength: 1 })),
  input: Type.Union([Type.String(), Type.Array(InputItem)]),
  instructions: Type.Optional(Nullable(Type.String())),
  tools: Type.Optional(Type.Array(Type.Union([FunctionTool, CustomTool, HostedTool]))),
  tool_choice: Type.Optional(Type.Unknown()),
  temperature: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 2 }), Type.Null()])),
  top_p: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()])),
  max_output_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  text: Type.Optional(Type.Object({ format: Type.Optional(TextFormat), verbosity: Type.Optional(Type.String()) })),
  reasoning: Type.Optional(
    Nullable(
      Type.Object({
        effort: Type.Optional(Nullable(Type.String())),
        summary: Type.Optional(Nullable(Type.String())),
        // The older name of `summary`, which OpenAI still accepts.
        generate_summary: Type.Optional(Nullable(Type.String())),
      }),
    ),
  ),
  include: Type.Optional(Nullable(Type.Array(Type.String()))),
  truncation: Type.Optional(Nullable(Type.Union([Type.Literal("auto"), Type.Literal("disabled")]))),
  top_logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
  service_tier: Type.Optional(Nullable(Type.String())),
  safety_identifier: Type.Optional(Nullable(Type.String())),
  background: Type.Optional(Nullable(Type.Boolean())),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
  store: Type.Optional(Nullable(Type.Boolean())),
  stream: Type.Optional(Nullable(Type.Boolean())),
  parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
  user: Type.Optional(Type.String()),
  prompt_cache_key: Type.Optional(Nullable(Type.String())),
  gateway: Type.Optional(Type.Unknown()),
  extensions: Type.Optional(Type.Unknown()),
});
export type ResponsesRequest = Static<typeof ResponsesRequest>;
export type ResponsesInputItem = Static<typeof InputItem>;
export type ResponsesContentPart = Static<typeof ContentPart>;

/** An item_reference names an item by id, which only stored state can resolve: refused, naming the item. */
function itemReferenceError(body: ResponsesRequest): FieldError | null {
  if (!Array.isArray(body.input)) return null;
  const index = body.input.findIndex((item) => "type" in item && item.type === "item_reference");
  if (index < 0) return null;
  return {
    param: `input[${index}]`,
    message: `'input[${index}]' is an item_reference, which this gateway cannot resolve; send the item itself.`,
  };
}

export type ParsedResponsesRequest = { ok: true; body: ResponsesRequest } | { ok: false; error: FieldError };

/** Validates a parsed JSON body; on failure names the first bad field (`param`) in a clear message. */
export function parseResponsesRequest(body: unknown): ParsedResponsesRequest {
  const error = firstFieldError(ResponsesRequest, body) ?? itemReferenceError(body as ResponsesRequest);
  if (error) return { ok: false, error };
  const stateful = statefulFieldError(body as Record<string, unknown>);
  if (stateful) return { ok: false, error: stateful };
  return { ok: true, body: body as ResponsesRequest };
}
